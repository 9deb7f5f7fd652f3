"""A browser session reduced to Streamlit's wire protocol, for load tests of the server.

Thirty Chromium tabs on the same two cores as the server measure mostly Chromium: each
tab's JavaScript and drawing take the CPU the server needs. This client speaks what a
tab speaks over ``/_stcore/stream`` (protobuf ``BackMsg``/``ForwardMsg``, the classes
Streamlit itself ships) and does nothing else, so thirty of them cost the machine almost
nothing and what they time is the server: from the request (open a page, click a
button) until the server's ``script_finished``, when every element of the answer has
been sent. What a real browser adds on top (its static files, drawing the page) is
measured by ``bench_app.py`` and ``bench_start.py``.
"""

from __future__ import annotations

import asyncio
import time
import urllib.request
import uuid
from http.cookies import SimpleCookie
from typing import Any

import websockets
from streamlit.proto.Alert_pb2 import Alert
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

_ENDS = (ForwardMsg.FINISHED_SUCCESSFULLY, ForwardMsg.FINISHED_WITH_COMPILE_ERROR)
"""A run's end; not a fragment's, nor one cut short by ``st.rerun`` (another follows)."""


class ProtocolSession:
    """One session of the app: open pages and click buttons, each timed to the end of
    the script run it starts. Use ``async with ProtocolSession(url) as session``."""

    def __init__(self, url: str, query: str = "") -> None:
        self.http = url
        self.url = url.replace("http", "ws", 1) + "/_stcore/stream"
        self.query = query
        self.page = ""
        self.session_id = ""
        self.buttons: dict[str, str] = {}
        """Label -> widget id of the buttons the last run drew."""
        self.uploaders: dict[str, str] = {}
        """Label -> widget id of the file uploaders the last run drew."""
        self.errors: list[str] = []
        """Exception messages the app showed (``st.exception`` elements): a load test
        that finds any has found a bug."""
        self.told: list[str] = []
        """The error boxes (``st.error``) the app showed: refused files, stopped runs."""
        self._socket: Any = None

    async def __aenter__(self) -> ProtocolSession:
        self._socket = await websockets.connect(self.url, max_size=None,
                                                subprotocols=["streamlit"])
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._socket.close()

    async def open(self, page: str = "") -> float:
        """Open ``page`` (its URL path; ``""`` for Home); seconds until the run ends."""
        self.page = page
        return await self._rerun()

    async def click(self, label: str) -> float:
        """Press the button labelled ``label`` drawn by the last run; seconds until the
        run it starts ends (a heavy run's wait in the server's line included)."""
        if label not in self.buttons:
            raise KeyError(f"no button {label!r} on {self.page or 'Home'}; "
                           f"drawn: {sorted(self.buttons)}")
        return await self._rerun(self.buttons[label])

    async def upload(self, label: str, name: str, data: bytes) -> float:
        """Give the file uploader labelled ``label`` the file ``name`` holding ``data``, as
        a browser does (ask for an upload URL, PUT the file with the XSRF token, rerun
        with the uploader's new value); seconds until the run it starts ends."""
        started = time.monotonic()
        request = BackMsg()
        request.file_urls_request.request_id = uuid.uuid4().hex
        request.file_urls_request.file_names.append(name)
        request.file_urls_request.session_id = self.session_id
        await self._socket.send(request.SerializeToString())
        while True:
            answer = ForwardMsg()
            answer.ParseFromString(await self._socket.recv())
            if answer.WhichOneof("type") == "file_urls_response":
                (urls,) = answer.file_urls_response.file_urls
                break
        await asyncio.to_thread(self._put, urls.upload_url, name, data)
        message = self._message()
        state = message.rerun_script.widget_states.widgets.add()
        state.id = self.uploaders[label]
        info = state.file_uploader_state_value.uploaded_file_info.add()
        info.name, info.size, info.file_id = name, len(data), urls.file_id
        info.file_urls.CopyFrom(urls)
        await self._run(message)
        return time.monotonic() - started

    def _put(self, path: str, name: str, data: bytes) -> None:
        """PUT ``data`` as the multipart form Streamlit's upload endpoint reads."""
        with urllib.request.urlopen(self.http + "/_stcore/health", timeout=60) as page:  # XSRF
            cookie = SimpleCookie(page.headers.get("Set-Cookie", ""))["_streamlit_xsrf"].value
        boundary = uuid.uuid4().hex
        body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; "
                f"filename=\"{name}\"\r\nContent-Type: text/csv\r\n\r\n").encode() + data + \
            f"\r\n--{boundary}--\r\n".encode()
        put = urllib.request.Request(
            path if path.startswith("http") else self.http + path, data=body, method="PUT",
            headers={"Content-Type": f"multipart/form-data; boundary={boundary}",
                     "X-Xsrftoken": cookie, "Cookie": f"_streamlit_xsrf={cookie}"})
        with urllib.request.urlopen(put, timeout=300):
            pass

    def _message(self, trigger: str | None = None) -> BackMsg:
        message = BackMsg()
        message.rerun_script.query_string = self.query
        message.rerun_script.page_name = self.page
        if trigger is not None:
            state = message.rerun_script.widget_states.widgets.add()
            state.id, state.trigger_value = trigger, True
        return message

    async def _rerun(self, trigger: str | None = None) -> float:
        return await self._run(self._message(trigger))

    async def _run(self, message: BackMsg) -> float:
        started = time.monotonic()
        await self._socket.send(message.SerializeToString())
        self.buttons, self.uploaders = {}, {}
        while True:
            answer = ForwardMsg()
            answer.ParseFromString(await self._socket.recv())
            kind = answer.WhichOneof("type")
            if kind == "new_session":
                self.session_id = answer.new_session.initialize.session_id
            elif kind == "delta" and answer.delta.WhichOneof("type") == "new_element":
                self._note(answer.delta.new_element)
            elif kind == "script_finished" and answer.script_finished in _ENDS:
                return time.monotonic() - started

    def _note(self, element: Any) -> None:
        kind = element.WhichOneof("type")
        if kind == "button":
            self.buttons[element.button.label] = element.button.id
        elif kind == "file_uploader":
            self.uploaders[element.file_uploader.label] = element.file_uploader.id
        elif kind == "alert" and element.alert.format == Alert.ERROR:
            self.told.append(element.alert.body)
        elif kind == "exception":
            self.errors.append(f"{element.exception.type}: {element.exception.message}")
