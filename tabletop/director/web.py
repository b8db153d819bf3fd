"""The director's screen: a page for a projector, served by ``tabletop director listen --web``.

Two addresses, served by Flask (the ``tournament`` extra) on werkzeug's own server, in a
thread of the listening process:

- ``/`` the page (``page.html`` beside this module): standings, the round's progress,
  each table's live game and the slips taken and refused, in type big enough for the
  back of a hall; it fetches ``/api/view`` every two seconds and redraws itself;
- ``/api/view`` the same as JSON: :class:`tabletop.director.view.View`.

Flask is imported only when the screen is asked for.

>>> WebAddress.parse("8080"), WebAddress.parse("0.0.0.0:8080").url
(WebAddress(host='127.0.0.1', port=8080), 'http://0.0.0.0:8080/')
"""

from __future__ import annotations

import socket
import threading
from dataclasses import dataclass
from importlib import resources
from typing import Any, Callable

from tabletop.errors import TabletopError
from tabletop.tournament.model import TournamentError

DEFAULT_HOST = "127.0.0.1"
#: How often the page asks for the view again, in milliseconds.
REFRESH_MS = 2000
NO_FLASK = ("the director's screen (--web) needs the Python package Flask: pip install "
            "'tabletop[tournament]' (or apt install python3-flask)")


@dataclass(frozen=True)
class WebAddress:
    """Where the screen is served: ``PORT`` (on 127.0.0.1, this laptop only) or ``HOST:PORT``
    (``0.0.0.0:8080``: every network of the laptop). Port 0 takes any free port."""

    host: str
    port: int

    @classmethod
    def parse(cls, text: str) -> WebAddress:
        """TournamentError if ``text`` is not ``[HOST:]PORT``."""
        host, colon, port = text.strip().rpartition(":")
        host = host.strip("[]") if colon else DEFAULT_HOST
        if not port.isdigit() or not 0 <= int(port) < 65536 or (colon and not host):
            raise TournamentError(f"--web takes [HOST:]PORT, such as 8080 or 0.0.0.0:8080 "
                                  f"({text!r} is not one)")
        return cls(host, int(port))

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/"


def require_flask() -> Any:
    """The ``flask`` module; TournamentError saying how to install it if it is missing."""
    try:
        import flask
    except ImportError:
        raise TournamentError(NO_FLASK) from None
    return flask


def page() -> str:
    """The page's HTML (its own CSS and script within)."""
    text = resources.files("tabletop.director").joinpath("page.html").read_text("utf-8")
    return text.replace("{{REFRESH_MS}}", str(REFRESH_MS))


def make_app(director: Any, out: Callable[[str], None] = print) -> Any:
    """The Flask application of the screen of ``director`` (a
    :class:`~tabletop.director.listen.Director`)."""
    from tabletop.director.view import build

    flask = require_flask()
    from werkzeug.exceptions import HTTPException

    app = flask.Flask("tabletop.director.web")
    html = page()

    @app.get("/")
    def index() -> Any:
        return flask.Response(html, mimetype="text/html")

    @app.get("/api/view")
    def api_view() -> Any:
        response = flask.jsonify(build(director.snapshot()).to_json())
        response.headers["Cache-Control"] = "no-store"
        return response

    @app.errorhandler(Exception)
    def failed(error: Exception) -> Any:
        if isinstance(error, HTTPException):
            return error
        # A damaged file read meanwhile: one line on the terminal, and the page says it.
        line = str(error) if isinstance(error, TabletopError) \
            else f"{type(error).__name__}: {error}"
        out(f"tabletop: the director's screen: {line}")
        return flask.jsonify({"error": line}), 503

    return app


class Screen:
    """The screen's server in a thread of its own: :meth:`start`, then :meth:`stop`."""

    def __init__(self, director: Any, address: WebAddress,
                 out: Callable[[str], None] = print) -> None:
        self.director, self.address, self.out = director, address, out
        self._server: Any = None
        self._thread: threading.Thread | None = None

    def start(self) -> WebAddress:
        """Bind and serve; the address served (its real port when 0 was asked). A port in use
        or an address not of this machine is a TournamentError."""
        from werkzeug.serving import WSGIRequestHandler, make_server

        class Quiet(WSGIRequestHandler):
            def log_request(self, *args: Any) -> None:    # the page asks every 2 s
                pass

        app = make_app(self.director, self.out)
        host, port = self.address.host, self.address.port
        try:
            bound = _bound(host, port)
        except OSError as error:
            raise TournamentError(f"cannot serve the director's screen on {host}:{port}: "
                                  f"{error.strerror or error}") from None
        with bound:                    # werkzeug serves a duplicate of it
            self._server = make_server(host, port, app, threaded=True, request_handler=Quiet,
                                       fd=bound.fileno())
        self.address = WebAddress(host, self._server.socket.getsockname()[1])
        self._thread = threading.Thread(target=self._server.serve_forever,
                                        name="director-screen", daemon=True)
        self._thread.start()
        wide = " (every network of this laptop: open it by the laptop's address)" \
            if self.address.host in ("0.0.0.0", "::") else ""
        self.out(f"the director's screen is at {self.address.url}{wide}")
        return self.address

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None


def _bound(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port``, bound here rather than by werkzeug, which would
    print lines of its own and exit on a port in use; OSError says why not."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    bound = socket.socket(family, socket.SOCK_STREAM)
    try:
        bound.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)   # restarted at once
        bound.bind((host, port))
        bound.listen(64)
    except BaseException:
        bound.close()
        raise
    return bound
