"""`solver serve`: a local page to look at a board, move its tiles, solve it and watch the
solution play, compare algorithms on small boards, and stop a long search.

The HTTP layer (app) is Starlette served by uvicorn (the optional extra `[web]`); what a request
may ask for is checked in requests, with the command line's own parser; the searches run in
threads of this process through the Python API (searches), one per client at a time."""
