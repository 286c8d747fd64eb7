"""A small OpenID Connect provider on a loopback port, standing in for a team's real one (Google, Entra,
Okta…) in tests of `st.login`: discovery document, authorization endpoint (authorization-code flow with
PKCE S256 and nonce), token endpoint (client_secret_basic or _post), JWKS, end-session endpoint. ID
tokens are RS256 JWTs signed with a key made at start (joserfc, which Authlib uses). The person who signs
in is `provider.user`: the stand-in approves at once, as a provider does for a user with a live session.
Every request is recorded in `provider.log` so a test can say what was asked and answered."""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlencode, urlsplit


class OIDCStandIn:
    def __init__(self, client_id: str, client_secret: str, user: dict) -> None:
        from joserfc.jwk import RSAKey

        self.client_id, self.client_secret, self.user = client_id, client_secret, dict(user)
        self.redirect_uris: set[str] = set()
        self.key = RSAKey.generate_key(2048, parameters={"kid": "stand-in-1", "use": "sig", "alg": "RS256"})
        self.codes: dict[str, dict] = {}
        self.log: list[tuple[str, str, int]] = []  # (method, path, status)
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.issuer = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def metadata_url(self) -> str:
        return self.issuer + "/.well-known/openid-configuration"

    def __enter__(self) -> OIDCStandIn:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()

    # -- the protocol ---------------------------------------------------------------------------------
    def discovery(self) -> dict:
        return {
            "issuer": self.issuer,
            "authorization_endpoint": self.issuer + "/authorize",
            "token_endpoint": self.issuer + "/token",
            "jwks_uri": self.issuer + "/jwks",
            "end_session_endpoint": self.issuer + "/logout",
            "response_types_supported": ["code"],
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["RS256"],
            "scopes_supported": ["openid", "email", "profile"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
            "claims_supported": ["sub", "email", "email_verified", "name"],
        }

    def authorize(self, q: dict) -> tuple[int, dict]:
        redirect = q.get("redirect_uri", "")
        if q.get("client_id") != self.client_id or redirect not in self.redirect_uris:
            return 400, {"error": "invalid_request", "error_description": "unknown client or redirect_uri"}
        if q.get("response_type") != "code" or "openid" not in q.get("scope", "").split():
            return 302, {
                "Location": redirect
                + "?"
                + urlencode({"error": "unsupported_response_type", "state": q.get("state", "")})
            }
        code = secrets.token_urlsafe(24)
        self.codes[code] = {
            "redirect_uri": redirect,
            "nonce": q.get("nonce"),
            "at": time.time(),
            "challenge": q.get("code_challenge"),
            "method": q.get("code_challenge_method"),
        }
        return 302, {"Location": redirect + "?" + urlencode({"code": code, "state": q.get("state", "")})}

    def token(self, form: dict, auth_header: str) -> tuple[int, dict]:
        from joserfc import jwt

        client_id, client_secret = form.get("client_id"), form.get("client_secret")
        if auth_header.startswith("Basic "):
            client_id, _, client_secret = base64.b64decode(auth_header[6:]).decode().partition(":")
        if (client_id, client_secret) != (self.client_id, self.client_secret):
            return 401, {"error": "invalid_client"}
        grant = self.codes.pop(form.get("code", ""), None)  # a code is good once
        if (
            form.get("grant_type") != "authorization_code"
            or grant is None
            or grant["redirect_uri"] != form.get("redirect_uri")
            or time.time() - grant["at"] > 60
        ):
            return 400, {"error": "invalid_grant"}
        if grant["challenge"]:
            verifier = form.get("code_verifier", "")
            digest = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
            if grant["method"] != "S256" or digest != grant["challenge"]:
                return 400, {"error": "invalid_grant", "error_description": "PKCE verifier does not match"}
        now = int(time.time())
        claims = {"iss": self.issuer, "aud": self.client_id, "iat": now, "exp": now + 300, **self.user}
        if grant["nonce"]:
            claims["nonce"] = grant["nonce"]
        id_token = jwt.encode({"alg": "RS256", "kid": self.key.kid}, claims, self.key)
        return 200, {
            "access_token": secrets.token_urlsafe(24),
            "token_type": "Bearer",
            "expires_in": 300,
            "id_token": id_token,
            "scope": "openid email profile",
        }

    def jwks(self) -> dict:
        return {"keys": [self.key.as_dict(private=False)]}

    # -- HTTP -----------------------------------------------------------------------------------------
    def _handler(self):
        provider = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:  # quiet: the test log has provider.log
                pass

            def _send(self, status: int, body: dict, headers: dict | None = None) -> None:
                provider.log.append((self.command, urlsplit(self.path).path, status))
                data = b"" if status == 302 else json.dumps(body).encode()
                self.send_response(status)
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                if data:
                    self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                url = urlsplit(self.path)
                q = {k: v[0] for k, v in parse_qs(url.query).items()}
                if url.path == "/.well-known/openid-configuration":
                    self._send(200, provider.discovery())
                elif url.path == "/jwks":
                    self._send(200, provider.jwks())
                elif url.path == "/authorize":
                    status, out = provider.authorize(q)
                    self._send(status, {} if status == 302 else out, out if status == 302 else None)
                elif url.path == "/logout":
                    target = q.get("post_logout_redirect_uri", "")  # registered ones only, as the spec asks
                    if target in provider.redirect_uris:
                        self._send(302, {}, {"Location": target})
                    else:
                        self._send(400, {"error": "invalid_request"})
                else:
                    self._send(404, {"error": "not_found"})

            def do_POST(self) -> None:
                size = min(int(self.headers.get("Content-Length") or 0), 65536)
                form = {k: v[0] for k, v in parse_qs(self.rfile.read(size).decode()).items()}
                if urlsplit(self.path).path == "/token":
                    self._send(*provider.token(form, self.headers.get("Authorization", "")))
                else:
                    self._send(404, {"error": "not_found"})

        return Handler
