"""Poll: anyone with the link (?debate=ID&poll=1) votes once per browser session, before and after."""

import streamlit as st

from ui import people_view
from ui.entry import through_app

through_app()
st.markdown("## :material/how_to_vote: Audience poll")
debate_id = st.query_params.get("debate")
if not debate_id:
    st.info("Open this page through the presenter's link: it names the debate (?debate=ID&poll=1).")
    st.stop()
people_view.poll_page(debate_id)
