"""Every page of the app through Streamlit's AppTest, run by tests/real_model/test_lonely_clone.py inside a copy of the
clone (the working directory) that has no data folder beside it: `python -m tests.support.lonely_pages`.

Prints one JSON object: per page, the exceptions it raised, its error boxes and its captions; plus the
Debate page switched to each claim task, whose example sources (LIAR, AVeriTeC) are not on the machine.
"""

from __future__ import annotations

import json
from pathlib import Path

from streamlit.testing.v1 import AppTest

APP = str(Path.cwd() / "app.py")


def _seen(at: AppTest) -> dict:
    return {
        "exceptions": [e.message for e in at.exception],
        "errors": [str(e.value) for e in at.error],
        "captions": [str(c.value) for c in at.caption],
    }


def main() -> None:
    out: dict[str, dict] = {}
    for page in sorted(Path("pages").glob("*.py")):
        at = AppTest.from_file(APP, default_timeout=240)
        at.run()
        at.switch_page(f"pages/{page.name}").run()
        out[page.stem] = _seen(at)
    for task in ("halftruth", "averitec"):
        at = AppTest.from_file(APP, default_timeout=240)
        at.run()
        at.selectbox(key="cfg_task").set_value(task).run()
        out[f"debate:{task}"] = _seen(at)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
