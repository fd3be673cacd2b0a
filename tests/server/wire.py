"""Raw HTTP/1.1 and HTTP/2 clients that keep the response's write boundaries: the chunks of a chunked body,
the DATA frames of an HTTP/2 stream (what a client that parses one JSON document per chunk sees)."""

from __future__ import annotations

import socket
from dataclasses import dataclass, field


@dataclass
class Reply:
    status: int
    headers: dict[str, str]
    parts: list[bytes] = field(default_factory=list)  # chunks (HTTP/1.1 chunked) or DATA frames (HTTP/2)

    @property
    def body(self) -> bytes:
        return b"".join(self.parts)


def h1(port: int, path: str, body: bytes, headers: dict[str, str] | None = None, timeout_s: float = 15.0,
       version: str = "HTTP/1.1") -> Reply:
    """One request on a fresh connection; a chunked body is returned chunk by chunk."""
    head = f"POST {path} {version}\r\nHost: 127.0.0.1\r\nContent-Length: {len(body)}\r\n"
    for k, v in (headers or {}).items():
        head += f"{k}: {v}\r\n"
    with socket.create_connection(("127.0.0.1", port), timeout=timeout_s) as s:
        s.sendall(head.encode() + b"\r\n" + body)
        f = s.makefile("rb")
        status_line = f.readline().decode()
        status = int(status_line.split()[1])
        hdrs: dict[str, str] = {}
        while True:
            line = f.readline().decode().rstrip("\r\n")
            if not line:
                break
            k, _, v = line.partition(":")
            hdrs[k.strip().lower()] = v.strip()
        reply = Reply(status, hdrs)
        if hdrs.get("transfer-encoding", "").lower() == "chunked":
            while True:
                size = int(f.readline().strip(), 16)
                if size == 0:
                    f.readline()
                    break
                reply.parts.append(f.read(size))
                f.readline()
        elif "content-length" in hdrs:
            reply.parts.append(f.read(int(hdrs["content-length"])))
        else:
            reply.parts.append(f.read())
        return reply


def h2(port: int, path: str, body: bytes, headers: dict[str, str] | None = None, timeout_s: float = 15.0) -> Reply:
    """One request over cleartext HTTP/2 with prior knowledge; the body is returned frame by frame."""
    import h2.config
    import h2.connection
    import h2.events

    conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
    with socket.create_connection(("127.0.0.1", port), timeout=timeout_s) as s:
        conn.initiate_connection()
        sid = conn.get_next_available_stream_id()
        hdrs = [(":method", "POST"), (":path", path), (":scheme", "http"), (":authority", f"127.0.0.1:{port}"),
                ("content-length", str(len(body)))] + [(k.lower(), v) for k, v in (headers or {}).items()]
        conn.send_headers(sid, hdrs)
        conn.send_data(sid, body, end_stream=True)
        s.sendall(conn.data_to_send())
        reply = Reply(0, {})
        done = False
        while not done:
            data = s.recv(65536)
            if not data:
                break
            for event in conn.receive_data(data):
                if isinstance(event, h2.events.ResponseReceived):
                    got = dict(event.headers)
                    reply.status = int(got.pop(":status"))
                    reply.headers = got
                elif isinstance(event, h2.events.DataReceived):
                    if event.data:
                        reply.parts.append(event.data)
                    conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
                elif isinstance(event, h2.events.StreamEnded | h2.events.StreamReset):
                    done = True
            s.sendall(conn.data_to_send())
        return reply
