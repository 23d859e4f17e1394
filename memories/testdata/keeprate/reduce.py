#!/usr/bin/env python3
"""Reduce a Claude config dir's transcripts to what memory extraction reads.

Usage: reduce.py SRC_CLAUDE_DIR OUT.tar.gz

Keeps every user, assistant, system and summary line of every transcript
(sessions and subagents) byte-for-byte in meaning, but cuts tool results and
tool inputs to 2,000 characters, drops image data, the `toolUseResult`
copies, file-history snapshots and bash progress lines. Of Claude Code 2.x's
hook progress lines (one per hook per tool call) the first of each distinct
hook (event, name, command) in a file is kept: the store keeps one hook row
per distinct run, and `hook:check` reads them. Queued prompts
(`queue-operation`) are kept: they are words the user typed. The result is what
TestExtractorKeepRate indexes and extracts from (memories/keeprate_test.go).
"""
import io, json, os, sys, tarfile

CUT = 2000
DROP_PROGRESS = {"bash_progress", "waiting_for_task"}


def cut(v):
    if isinstance(v, str):
        return v if len(v) <= CUT else v[:CUT] + "…[cut]"
    if isinstance(v, list):
        return [cut(x) for x in v]
    if isinstance(v, dict):
        if v.get("type") == "image" or ("data" in v and v.get("type") == "base64"):
            return {k: ("" if k == "data" else cut(x)) for k, x in v.items()}
        return {k: cut(x) for k, x in v.items()}
    return v


def reduce_content(content):
    if not isinstance(content, list):
        return content
    out = []
    for b in content:
        if not isinstance(b, dict):
            out.append(b)
            continue
        t = b.get("type")
        if t in ("tool_result", "tool_use", "image"):
            out.append(cut(b))
        else:
            out.append(b)
    return out


def reduce_line(line, hooks):
    try:
        d = json.loads(line)
    except ValueError:
        return None
    if not isinstance(d, dict):
        return None
    t = d.get("type")
    data = d.get("data") if isinstance(d.get("data"), dict) else {}
    if t == "progress" and data.get("type") in DROP_PROGRESS:
        return None
    if t == "progress" and data.get("type") == "hook_progress":
        key = (data.get("hookEvent"), data.get("hookName"), data.get("command"))
        if key in hooks:
            return None
        hooks.add(key)
    if t == "file-history-snapshot":
        return None
    d.pop("toolUseResult", None)
    if t == "progress":
        d = cut(d)
    m = d.get("message")
    if isinstance(m, dict) and "content" in m:
        m["content"] = reduce_content(m["content"])
    return json.dumps(d, ensure_ascii=False, separators=(",", ":"))


def main(src, out):
    with tarfile.open(out, "w:gz") as tar:
        for root, dirs, files in os.walk(src):
            dirs.sort()
            for f in sorted(files):
                p = os.path.join(root, f)
                rel = os.path.relpath(p, src)
                if f.endswith(".jsonl"):
                    lines = []
                    hooks = set()
                    with open(p, encoding="utf-8", errors="replace") as fh:
                        for line in fh:
                            r = reduce_line(line, hooks)
                            if r is not None:
                                lines.append(r)
                    data = ("\n".join(lines) + ("\n" if lines else "")).encode()
                elif f.endswith(".meta.json"):
                    data = open(p, "rb").read()
                else:
                    continue
                ti = tarfile.TarInfo(rel)
                ti.size = len(data)
                ti.mtime = int(os.path.getmtime(p))
                ti.mode = 0o644
                tar.addfile(ti, io.BytesIO(data))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
