#!/usr/bin/env python3
"""The Python side of `npm run bench:webhooks`: a minimal webhook endpoint doing what Sentient's
POST /hooks/{id} does at its core (SHA-256 secret check in constant time, the call stored in
SQLite and committed with a synced write before the answer), so the Rust bench can load both the
same way. FastAPI/uvicorn are not installed on the bench machine and pip has no internet there,
so this uses the standard library's ThreadingHTTPServer.

Usage: webhooks_python.py DB_PATH SECRET  -> prints "PORT <n>" once it listens on 127.0.0.1.
GET /count answers the number of stored calls.
"""

import hashlib
import hmac
import json
import os
import sqlite3
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, urlsplit

DB_PATH, SECRET = sys.argv[1], sys.argv[2]
DIGEST = hashlib.sha256(SECRET.encode()).digest()
HOOK_ID = "bench"
MAX_BODY = 256 * 1024

db = sqlite3.connect(DB_PATH, check_same_thread=False, isolation_level=None)
db.execute("PRAGMA journal_mode = WAL")
db.execute("PRAGMA synchronous = FULL")
db.execute(
    "CREATE TABLE IF NOT EXISTS hook_calls (id TEXT PRIMARY KEY, hook_id TEXT, received_at REAL, item TEXT)"
)
lock = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):  # no per-request log lines (and never the secret)
        pass

    def answer(self, status, payload):
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        with lock:
            (count,) = db.execute("SELECT COUNT(*) FROM hook_calls").fetchone()
        self.answer(200, {"count": count})

    def do_POST(self):
        url = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        if url.path != f"/hooks/{HOOK_ID}":
            return self.answer(404, {"detail": "There is no webhook with that id."})
        query = dict(parse_qsl(url.query))
        secret = self.headers.get("X-Sentient-Secret") or query.pop("secret", None) or ""
        if not hmac.compare_digest(hashlib.sha256(secret.encode()).digest(), DIGEST):
            return self.answer(401, {"detail": "The webhook secret is missing or wrong."})
        if length > MAX_BODY:
            return self.answer(413, {"detail": "The body is too large."})
        content_type = self.headers.get("Content-Type")
        if body and content_type and content_type.startswith("application/json"):
            try:
                parsed = json.loads(body)
            except ValueError:
                return self.answer(400, {"detail": "The body is not valid JSON."})
        else:
            parsed = body.decode("utf-8", "replace") if body else None
        item_id = uuid.uuid4().hex
        item = {"id": item_id, "name": "bench", "body": parsed, "received_at": time.time(),
                "content_type": content_type, "query": query}
        with lock:
            db.execute("INSERT INTO hook_calls VALUES (?, ?, ?, ?)",
                       (item_id, HOOK_ID, item["received_at"], json.dumps(item)))
        self.answer(200, {"ok": True, "item_id": item_id})


ThreadingHTTPServer.daemon_threads = True
ThreadingHTTPServer.request_queue_size = 1024
server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(f"PORT {server.server_address[1]}", flush=True)
try:
    server.serve_forever()
except KeyboardInterrupt:
    pass
finally:
    os._exit(0)
