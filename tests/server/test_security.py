"""Basic authentication (users file) and TLS (with HTTP/2 through ALPN) on the real server."""

from __future__ import annotations

import datetime as dt
import ssl
from typing import Any

import httpx
import pytest

from ksqlpy.testing.server_process import ServerProcess


def test_basic_auth(tmp_path: Any) -> None:
    users = tmp_path / "users.properties"
    users.write_text("# user: password, roles\nfred: letmein,admin\nmd5user: MD5:0d107d09f5bbe40cade3de5c71e9e9b7\n")
    server = ServerProcess(str(tmp_path / "data"), {"authentication.method": "BASIC",
                                                   "authentication.users.file": str(users)})
    server.start(wait=False)
    try:
        server.wait_ready(auth=("fred", "letmein"))
        assert httpx.get(server.url + "/chc/ready").status_code == 200  # probes stay open
        denied = httpx.get(server.url + "/info")
        assert denied.status_code == 401 and denied.json()["error_code"] == 40100
        assert denied.headers["www-authenticate"].startswith("Basic realm=")
        assert httpx.get(server.url + "/info", auth=("fred", "nope")).status_code == 401
        assert httpx.get(server.url + "/info", auth=("fred", "letmein")).status_code == 200
        assert httpx.get(server.url + "/info", auth=("md5user", "letmein")).status_code == 200
        with httpx.Client(base_url=server.url, http1=False, http2=True, auth=("fred", "letmein")) as h2:
            assert h2.post("/ksql", json={"ksql": "SHOW STREAMS;"}).status_code == 200
            # a prepared key lookup (answered before routing) still needs credentials
            assert h2.post("/ksql", json={"ksql": "CREATE TABLE AUTH_T (ID INT PRIMARY KEY, V STRING) WITH "
                                                  "(kafka_topic='auth_t', partitions=1, value_format='JSON'); "
                                                  "CREATE TABLE AUTH_Q AS SELECT * FROM AUTH_T;"}).status_code == 200
            lookup = {"sql": "SELECT * FROM AUTH_Q WHERE ID = 1;"}
            for _ in range(2):  # the first runs the full path and prepares the shape
                assert h2.post("/query-stream", json=lookup).status_code == 200
        for proto in ({"http1": True, "http2": False}, {"http1": False, "http2": True}):
            with httpx.Client(base_url=server.url, **proto) as anonymous:
                refused = anonymous.post("/query-stream", json=lookup)
                assert refused.status_code == 401 and refused.json()["error_code"] == 40100
    finally:
        server.stop()


def _self_signed(tmp_path: Any) -> tuple[str, str]:
    crypto = pytest.importorskip("cryptography")
    del crypto
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = dt.datetime.now(dt.UTC)
    import ipaddress

    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - dt.timedelta(days=1))
            .not_valid_after(now + dt.timedelta(days=2))
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                           critical=False)
            .sign(key, hashes.SHA256()))
    cert_path, key_path = tmp_path / "cert.pem", tmp_path / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return str(cert_path), str(key_path)


def test_tls_with_http2_over_alpn(tmp_path: Any) -> None:
    cert, key = _self_signed(tmp_path)
    server = ServerProcess(str(tmp_path / "data"), {"ssl.certificate.location": cert, "ssl.key.location": key},
                           scheme="https")
    server.start(wait=False)
    ctx = ssl.create_default_context(cafile=cert)
    try:
        server.wait_ready(verify=ctx)
        with httpx.Client(base_url=server.url, verify=ctx, http2=True) as c:
            r = c.get("/info")
            assert r.status_code == 200 and r.http_version == "HTTP/2"
        with httpx.Client(base_url=server.url, verify=ctx) as c:
            assert c.post("/ksql", json={"ksql": "SHOW TOPICS;"}).http_version == "HTTP/1.1"
        with pytest.raises(httpx.HTTPError):
            httpx.get(server.url + "/info")  # not trusted without the CA
    finally:
        server.stop()


def test_each_listener_speaks_its_own_scheme(tmp_path: Any) -> None:
    """``listeners=http://...,https://...``: the http port is cleartext, the https one TLS (a certificate
    configured for the https listener used to make the http one speak TLS too)."""
    import time

    from ksqlpy.testing.server_process import free_port

    cert, key = _self_signed(tmp_path)
    plain, secure = free_port(), free_port()
    server = ServerProcess(str(tmp_path / "data"), {"ssl.certificate.location": cert, "ssl.key.location": key},
                           extra_args=["--listeners", f"http://127.0.0.1:{plain},https://127.0.0.1:{secure}"])
    server.start(wait=False)
    ctx = ssl.create_default_context(cafile=cert)
    try:
        end = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"http://127.0.0.1:{plain}/info", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < end, server.log_tail()
            time.sleep(0.1)
        assert httpx.get(f"https://127.0.0.1:{secure}/info", verify=ctx, timeout=10).status_code == 200
        with pytest.raises(httpx.HTTPError):
            httpx.get(f"http://127.0.0.1:{secure}/info", timeout=5)  # the https port does not speak cleartext
        with pytest.raises(httpx.HTTPError):
            httpx.get(f"https://127.0.0.1:{plain}/info", verify=ctx, timeout=5)  # nor the http one TLS
    finally:
        server.stop()
