"""The local web app (`wordle-dp serve`): play/assist, strategy and results pages
over the same Python API as the CLI. Needs the `web` extra (FastAPI, uvicorn)."""
