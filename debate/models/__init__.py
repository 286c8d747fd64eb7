"""Model backends behind one interface: a spec ("local:qwen2.5-coder-0.5b", "ollama:...", "openai:...@URL")
goes to the client (per-model lock, cache, retries), which streams from llama.cpp, Ollama or an
OpenAI-compatible server; backends.py is their one registry (others' through the entry-point group
`debate.backends`); packaged.py assembles and checks the embedded models.

Parts layer: may import only the foundation (errors, config); nothing about debates, protocols or prompts.
"""
