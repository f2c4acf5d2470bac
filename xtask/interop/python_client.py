"""Interop client: drive an MCP resources server with the official Python MCP SDK.

The xtask interop run installs the PyPI package `mcp` (2.x or 1.x) into a venv,
makes a fixture directory (a.txt, b.txt, c.txt, d.txt, logo.bin, docs/guide.md),
starts `mcp-resources serve --page-size 2 DIR` and runs, for example:

    python python_client.py --era legacy --transport stdio \
        --command "target/debug/mcp-resources serve --page-size 2 DIR" --tree DIR
    python python_client.py --era modern --transport http \
        --url http://127.0.0.1:PORT/mcp --tree DIR

Each check prints one JSON line {"check", "ok", "detail"} on stdout; SDK logs go
to stderr. Exit 0 once the checks are printed (whatever their outcome), exit 2
when the script cannot run at all (bad arguments, the SDK cannot be imported).
The script may append to DIR/a.txt (the subscription check).
"""

import argparse
import base64
import importlib.metadata
import json
import logging
import os
import shlex
import sys
import time
import warnings
from contextlib import AsyncExitStack, asynccontextmanager
from datetime import timedelta

FILES = ["a.txt", "b.txt", "c.txt", "d.txt", "logo.bin", "guide.md"]
REQUEST_TIMEOUT = 15  # seconds, any single request
CHECK_TIMEOUT = 30  # seconds, any single check
UPDATE_WAIT = 20  # seconds, waiting for the change notification
OVERALL_TIMEOUT = 60  # seconds, the whole run
CLOSE_MARGIN = 5  # seconds of OVERALL_TIMEOUT kept for closing the session (stopping a stdio server)


def emit(check, ok, detail):
    print(json.dumps({"check": check, "ok": bool(ok), "detail": detail[:400]}), flush=True)


def describe(exc):
    """A short text for an exception, looking into exception groups."""
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    return f"{type(exc).__name__}: {exc}"


def attr(obj, snake, camel):
    """A field by its 2.x (snake_case) or 1.x (camelCase) name."""
    return getattr(obj, snake) if hasattr(obj, snake) else getattr(obj, camel)


class Updates:
    """Resource URIs named by notifications/resources/updated, as they arrive."""

    def __init__(self, anyio):
        self.anyio = anyio
        self.seen = []
        self.changed = anyio.Event()

    async def handler(self, message):
        note = getattr(message, "root", message)  # 1.x wraps notifications in a RootModel
        if getattr(note, "method", None) == "notifications/resources/updated":
            self.seen.append(str(note.params.uri))
            self.changed.set()
            self.changed = self.anyio.Event()

    async def wait_for(self, uri):
        while uri not in self.seen:
            await self.changed.wait()


class Connection:
    """What the checks need, over either SDK: pages, reads, and change notifications."""

    def __init__(self, anyio, era, session, client, updates):
        self.anyio, self.era = anyio, era
        self.session, self.client, self.updates = session, client, updates  # client: 2.x only

    async def list_page(self, cursor):
        if self.client is not None:
            page = await self.client.list_resources(cursor=cursor)
        else:
            page = await self.session.list_resources(cursor)
        return page.resources, attr(page, "next_cursor", "nextCursor")

    async def read(self, uri):
        target = self.client if self.client is not None else self.session
        return (await target.read_resource(uri)).contents

    async def see_update(self, uri, path):
        """Subscribe to uri, append to path, and wait for the update; returns a detail."""
        if self.era == "modern":
            async with self.client.listen(resource_subscriptions=[uri]) as sub:
                honored = list(sub.honored.resource_subscriptions or [])
                if uri not in honored:
                    return False, f"listen acknowledged {honored}, not {uri}"
                start = append_line(path)
                with self.anyio.move_on_after(UPDATE_WAIT):
                    async for event in sub:
                        if getattr(event, "uri", None) == uri:
                            return True, f"acknowledged; update after {time.monotonic() - start:.2f} s"
                    return False, "the listen stream ended without the update"
                return False, f"no update within {UPDATE_WAIT} s"
        target = self.client if self.client is not None else self.session
        await target.subscribe_resource(uri)
        start = append_line(path)
        with self.anyio.move_on_after(UPDATE_WAIT):
            await self.updates.wait_for(uri)
            return True, f"update after {time.monotonic() - start:.2f} s"
        return False, f"no update within {UPDATE_WAIT} s; updates seen: {self.updates.seen}"


def append_line(path):
    with open(path, "a") as f:
        f.write("one more line\n")
    return time.monotonic()


@asynccontextmanager
async def connect(args, sdk_major, anyio):
    """Open a session with the server, the SDK's way."""
    updates = Updates(anyio)
    argv = shlex.split(args.command) if args.transport == "stdio" else None
    if sdk_major >= 2:
        from mcp import Client, StdioServerParameters

        server = StdioServerParameters(command=argv[0], args=argv[1:]) if argv else args.url
        mode = "legacy" if args.era == "legacy" else "2026-07-28"
        client = Client(server, mode=mode, message_handler=updates.handler, cache=None,
                        read_timeout_seconds=REQUEST_TIMEOUT)
        async with client:
            yield Connection(anyio, args.era, client.session, client, updates)
        return
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client
    from mcp.client.streamable_http import streamablehttp_client

    async with AsyncExitStack() as stack:
        if argv:
            params = StdioServerParameters(command=argv[0], args=argv[1:])
            read, write = await stack.enter_async_context(stdio_client(params))
        else:
            read, write, _ = await stack.enter_async_context(streamablehttp_client(args.url))
        session = await stack.enter_async_context(ClientSession(
            read, write, read_timeout_seconds=timedelta(seconds=REQUEST_TIMEOUT),
            message_handler=updates.handler))
        await session.initialize()
        yield Connection(anyio, args.era, session, None, updates)


async def check_list(conn, tree):
    cursor, pages, names = None, 0, []
    while True:
        resources, cursor = await conn.list_page(cursor)
        pages += 1
        names += [r.name for r in resources]
        if not cursor or pages >= 50:
            break
    ok = sorted(names) == sorted(FILES) and len(names) == len(FILES) and pages > 1
    return ok, f"{pages} pages: {', '.join(names)}"


async def check_text(conn, tree):
    expected = tree["a.txt"][1]
    contents = await conn.read(tree["a.txt"][0])
    got = [getattr(c, "text", None) for c in contents]
    return got == [expected.decode()], f"{len(contents)} contents, text {got!r}"


async def check_blob(conn, tree):
    contents = await conn.read(tree["logo.bin"][0])
    if len(contents) != 1 or getattr(contents[0], "blob", None) is None:
        return False, f"{len(contents)} contents: {[type(c).__name__ for c in contents]}"
    data = base64.b64decode(contents[0].blob)
    mime = attr(contents[0], "mime_type", "mimeType")
    return data == bytes(range(256)), f"one blob of {len(data)} bytes, mimeType {mime}"


async def check_directory(conn, tree):
    """resources/directory/read of docs/ (the Skills extension): the SDK has no method for it,
    so it goes as a typed request of the script's own, which 2.x sends like any other (1.x
    sends only the requests it knows, so this check is 2.x's alone)."""
    from typing import Literal

    from mcp import types

    class DirectoryParams(types.RequestParams):
        uri: str

    class DirectoryRead(types.Request[DirectoryParams, Literal["resources/directory/read"]]):
        method: Literal["resources/directory/read"] = "resources/directory/read"
        params: DirectoryParams

    request = DirectoryRead(params=DirectoryParams(uri=tree["docs"][0]))
    page = await conn.session.send_request(request, types.ListResourcesResult)
    names = [r.name for r in page.resources]
    return names == ["guide.md"], f"children {names}"


async def check_subscribe(conn, tree):
    uri, _, path = tree["a.txt"]
    return await conn.see_update(uri, path)


def read_tree(root):
    """Name -> (URI, content at the start, path) of the two files the checks read, and docs."""
    tree = {}
    for rel in ["a.txt", "logo.bin"]:
        path = os.path.realpath(os.path.join(root, rel))
        with open(path, "rb") as f:
            tree[rel] = ("file://" + path, f.read(), path)
    docs = os.path.realpath(os.path.join(root, "docs"))
    tree["docs"] = ("file://" + docs, b"", docs)
    return tree


async def run(args, sdk_major, tree):
    import anyio

    steps = [
        ("list every page", check_list),
        ("read text", check_text),
        ("read blob", check_blob),
        ("read a directory", check_directory),
        ("subscribe, see an update", check_subscribe),
    ]
    if sdk_major < 2:
        steps = [(name, step) for name, step in steps if step is not check_directory]
    names = [name for name, _ in steps]
    done = 0
    with anyio.move_on_after(OVERALL_TIMEOUT - CLOSE_MARGIN):
        try:
            async with connect(args, sdk_major, anyio) as conn:
                for name, step in steps:
                    try:
                        with anyio.fail_after(CHECK_TIMEOUT):
                            ok, detail = await step(conn, tree)
                    except Exception as exc:
                        ok, detail = False, describe(exc)
                    emit(name, ok, detail)
                    done += 1
        except Exception as exc:
            for name in names[done:]:
                emit(name, False, "session failed: " + describe(exc))
            done = len(names)
    for name in names[done:]:
        emit(name, False, f"overall {OVERALL_TIMEOUT} s timeout")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--era", choices=["legacy", "modern"], required=True)
    parser.add_argument("--transport", choices=["stdio", "http"], required=True)
    parser.add_argument("--command", help="the server's command line (stdio)")
    parser.add_argument("--url", help="the server's Streamable HTTP endpoint (http)")
    parser.add_argument("--tree", required=True, help="the served directory")
    args = parser.parse_args()
    if args.transport == "stdio" and not args.command:
        parser.error("--transport stdio needs --command")
    if args.transport == "http" and not args.url:
        parser.error("--transport http needs --url")
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    # The legacy era uses resources/subscribe on purpose; 2.x warns that it is deprecated.
    warnings.filterwarnings("ignore", message="resources/subscribe is removed")
    try:
        tree = read_tree(args.tree)
    except OSError as exc:
        parser.error(f"--tree: {exc}")
    try:
        version = importlib.metadata.version("mcp")
        sdk_major = int(version.split(".")[0])
        import anyio  # noqa: F401  (installed with the SDK)
        import mcp  # noqa: F401
    except Exception as exc:
        print(f"python_client: cannot use the MCP SDK: {describe(exc)}", file=sys.stderr)
        sys.exit(2)
    if args.era == "modern" and sdk_major < 2:
        emit("era", False, "SDK 1.x has no 2026-07-28")
        sys.exit(0)
    print(f"python_client: mcp {version}, era {args.era}, {args.transport}", file=sys.stderr)
    anyio.run(run, args, sdk_major, tree)
    sys.exit(0)


if __name__ == "__main__":
    main()
