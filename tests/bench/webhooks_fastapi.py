#!/usr/bin/env python3
"""The FastAPI/uvicorn side of `npm run bench:webhooks`: the same minimal webhook endpoint as
webhooks_python.py (SHA-256 secret check in constant time, the call stored in SQLite and committed
with a synced write before the answer), written the way a FastAPI service would. Debian ships
FastAPI and uvicorn as python3-fastapi and python3-uvicorn.

Usage: webhooks_fastapi.py DB_PATH SECRET  -> prints "PORT <n>" once it listens on 127.0.0.1.
GET /count answers the number of stored calls.
"""

import hashlib
import hmac
import json
import socket
import sqlite3
import sys
import threading
import time
import uuid

import uvicorn
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

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
app = FastAPI()


@app.get("/count")
def count():
    with lock:
        (n,) = db.execute("SELECT COUNT(*) FROM hook_calls").fetchone()
    return {"count": n}


@app.post("/hooks/{hook_id}")
async def hook(hook_id: str, request: Request):
    if hook_id != HOOK_ID:
        return JSONResponse({"detail": "There is no webhook with that id."}, status_code=404)
    query = dict(request.query_params)
    secret = request.headers.get("x-sentient-secret") or query.pop("secret", None) or ""
    if not hmac.compare_digest(hashlib.sha256(secret.encode()).digest(), DIGEST):
        return JSONResponse({"detail": "The webhook secret is missing or wrong."}, status_code=401)
    body = await request.body()
    if len(body) > MAX_BODY:
        return JSONResponse({"detail": "The body is too large."}, status_code=413)
    content_type = request.headers.get("content-type")
    if body and content_type and content_type.startswith("application/json"):
        try:
            parsed = json.loads(body)
        except ValueError:
            return JSONResponse({"detail": "The body is not valid JSON."}, status_code=400)
    else:
        parsed = body.decode("utf-8", "replace") if body else None
    item_id = uuid.uuid4().hex
    item = {"id": item_id, "name": "bench", "body": parsed, "received_at": time.time(),
            "content_type": content_type, "query": query}
    with lock:
        db.execute("INSERT INTO hook_calls VALUES (?, ?, ?, ?)",
                   (item_id, HOOK_ID, item["received_at"], json.dumps(item)))
    return {"ok": True, "item_id": item_id}


sock = socket.socket()
sock.bind(("127.0.0.1", 0))
print(f"PORT {sock.getsockname()[1]}", flush=True)
uvicorn.run(app, fd=sock.fileno(), log_level="warning", access_log=False)
