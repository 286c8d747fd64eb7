"""Models: backends and their health, settings (Ollama host, OpenAI base URL/key), and a prompt box."""

import time

import streamlit as st

from debate.errors import DebateError
from debate.models.backends import get, listed
from debate.models.base import GenOptions
from debate.models.openai_backend import DEFAULT_BASE_URL, JSON_FORMS, key_for, mask_key, with_saved_key
from debate.models.registry import readiness
from debate.models.spec import redacted, refuse_credentials
from ui import resources
from ui.entry import through_app
from ui.safe import error_md, escape, text_html

through_app()

st.markdown("## :material/memory: Models")


def _urls_ok(host: str, base: str) -> bool:
    """False, with the error shown, when a URL holds a password: it would come back to this box (the
    browser) and be shown on pages, where a key never goes."""
    try:
        refuse_credentials(host, "The Ollama host")
        refuse_credentials(base, "The OpenAI-compatible base URL")
    except DebateError as e:
        st.error(error_md(e), icon=":material/error:")
        return False
    return True


settings = resources.load_settings()
with st.expander("Settings", icon=":material/settings:", expanded=False):
    with st.form("settings"):
        host = st.text_input(
            "Ollama host",
            value=redacted((settings.get("ollama") or {}).get("host", "")),
            placeholder="http://127.0.0.1:11434 (or OLLAMA_HOST)",
            key="set_ollama_host",
        )
        base = st.text_input(
            "OpenAI-compatible base URL",
            value=redacted((settings.get("openai") or {}).get("base_url", "")),
            placeholder="https://api.openai.com/v1 (or OPENAI_BASE_URL)",
            key="set_openai_base",
        )
        oa = settings.get("openai") or {}
        saved = key_for(oa.get("base_url") or DEFAULT_BASE_URL, oa, env={})  # saved here, not the environment's
        # the key itself never goes to the browser: an empty box keeps the saved one
        key = st.text_input(
            "OpenAI API key (for this base URL only)",
            value="",
            type="password",
            placeholder=f"saved: {mask_key(saved)} — leave empty to keep" if saved else "sk-… (or OPENAI_API_KEY)",
            key="set_openai_key",
        )
        forget = st.checkbox("Forget the saved key for this URL", key="set_openai_forget", disabled=not saved)
        if oa.get("keys"):
            st.caption("Keys saved for: " + ", ".join(f"{redacted(u)} ({mask_key(k)})" for u, k in oa["keys"].items()))
        forms = ["auto", *JSON_FORMS]
        fmt = st.selectbox(
            "How to ask the OpenAI-compatible server for JSON",
            forms,
            key="set_openai_json",
            index=forms.index((settings.get("openai") or {}).get("json_format", "auto")),
            help="auto tries OpenAI's json_schema, then llama.cpp's form, then plain JSON mode, then "
            "none (prompt + repair), and keeps the first the server accepts.",
        )
        if st.form_submit_button("Save settings", icon=":material/save:") and _urls_ok(host, base):
            new = dict(settings)
            new["ollama"] = {**(settings.get("ollama") or {}), "host": host.strip()}
            new["openai"] = {
                **with_saved_key(settings.get("openai") or {}, base.strip(), key, forget),
                "base_url": base.strip(),
                "json_format": "" if fmt == "auto" else fmt,
            }
            for sec in ("ollama", "openai"):
                new[sec] = {k: v for k, v in new[sec].items() if v}
            resources.save_settings(new)
            resources.known_models(refresh=True)
            st.success(f"Saved to {resources.settings_path()}. Empty fields fall back to the environment.")
            settings = new

top = st.columns([6, 1])
refresh = top[1].button("Refresh", key="models_refresh", icon=":material/refresh:")
rows = resources.known_models(refresh=refresh)
DOT = {
    "ready": "🟢",
    "assembled on first use": "🟡",
    "missing": "🟠",
    "unreachable": "🔴",
    "error": "🔴",
    "checking": "⚪",
}

st.markdown("#### Backends")
shown = listed()  # the backends registry: the built-in three, then other packages'
cols = st.columns(len(shown))
for col, backend in zip(cols, shown):
    mine = [r for r in rows if r.backend == backend]
    ready = [r for r in mine if r.name and readiness(r) == "ready"]
    later = [r for r in mine if r.name and readiness(r) == "assembled on first use"]
    problem = next((r.detail for r in mine if not r.name), "")
    with col.container(border=True):
        st.markdown(
            f"**{escape(get(backend).title)}**  \n{DOT['ready'] if ready else DOT['assembled on first use'] if later else DOT['unreachable']} "
            f"{len(ready)} model(s) ready" + (f" · {len(later)} assembled on first use" if later else "")
        )
        if problem:
            st.caption(problem)

st.markdown("#### Models")
st.dataframe(
    [
        {
            "status": f"{DOT.get(readiness(r), '⚪')} {readiness(r)}",
            "spec": r.spec,
            "model": str((r.extra or {}).get("title") or ""),  # what it is, e.g. Qwen2.5-Coder-0.5B-Instruct Q4_K_M
            "backend": r.backend,
            "size": f"{r.size_bytes / 1e6:,.0f} MB" if r.size_bytes else "",
            "license": r.license,
            "detail": r.detail,
        }
        for r in rows
        if r.name
    ],
    hide_index=True,
    width="stretch",
)

st.markdown("#### Try a model")
ready = [r.spec for r in rows if r.name and r.status == "ready"]
c1, c2 = st.columns([3, 1])
spec = c1.selectbox(
    "Model",
    ready or ["local:qwen2.5-coder-0.5b"],
    key="try_model",
    accept_new_options=True,
    help="Pick one, or type any spec such as ollama:qwen3:8b or openai:NAME@http://HOST:PORT/v1",
)
max_tokens = c2.number_input("Max tokens", 8, 2048, 128, step=16, key="try_max_tokens")
prompt = st.text_area("Prompt", key="try_prompt", placeholder="Ask something…", height=90)
if st.button("Send", key="try_send", type="primary", icon=":material/send:"):
    if not prompt.strip():
        st.error("The prompt is empty. Type something to send.")
    else:
        box = st.empty()
        text = ""
        try:
            stream = resources.get_client().chat(
                spec, [{"role": "user", "content": prompt}], GenOptions(max_tokens=int(max_tokens), cache=False)
            )
            last = 0.0
            for piece in stream:
                text += piece
                if time.perf_counter() - last > 0.05:
                    box.markdown(text_html(text), unsafe_allow_html=True)
                    last = time.perf_counter()
            res = stream.result()
            box.markdown(text_html(text or "(empty answer)"), unsafe_allow_html=True)
            st.caption(
                f"{res.completion_tokens} tokens · first token {res.ttft_s or 0:.2f} s · "
                f"total {res.latency_s:.2f} s · finish: {escape(str(res.finish_reason))}"
            )  # the server's word
        except DebateError as e:
            if text:
                box.markdown(text_html(text), unsafe_allow_html=True)
            st.error(error_md(e), icon=":material/error:")
