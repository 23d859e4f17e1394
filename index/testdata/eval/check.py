#!/usr/bin/env python3
"""Sanity checks for queries.json, the labelled search-quality query set.

Run from anywhere:  python3 index/testdata/eval/check.py [queries.json]

It verifies that
  * every query has the expected fields, a known type and a unique id;
  * every relevant uuid is a user/assistant entry of the bundled sample
    (testdata/claude/projects) that carries searchable text, and that its
    sessionId equals the query's session;
and prints
  * counts per type and per session;
  * for paraphrase queries, the non-stopword tokens the query shares with its
    best (first) answer, raw and after a crude suffix stemmer (the goal is at
    most one shared word);
  * for keyword queries, how many query words literally occur in the best
    answer (they should nearly all occur);
  * for identifier queries, whether the identifier (ignoring case and
    _ - . / separators) occurs in the best answer;
  * keyword/identifier relevant entries that share under half of the query
    words (a hint that the label may be wrong).

"Searchable text" mirrors transcripts.ToolSearchText: text and thinking
blocks, string prompts, tool_result text, and for tool_use the tool name plus
description/command/file_path/notebook_path/path/pattern/url/query/
subagent_type (and prompt for Task/Agent) - never file bodies of Write/Edit;
tool_result text is cut to its first 2000 and last 1000 bytes like the
indexer's default ToolHead/ToolTail.
Exit status is 1 if a hard check fails.
"""
import collections
import glob
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", "..", "testdata", "claude", "projects"))
TYPES = {"keyword", "paraphrase", "identifier", "phrase", "question", "nonsense"}
# nonsense queries have no answer: they check the relevance floor.

STOP = set("""
a about above after again against all am an and any are as at be because been before being below between both but by
can could did do does doing done down during each few for from further get got had has have having he her here hers
him his how i if in into is it its itself just me more most my no nor not now of off on once only or other our ours
out over own same she should so some such than that the their theirs them then there these they this those through to
too under until up very was we were what when where which while who whom why will with would you your yours yet
let lets im ive dont didnt doesnt isnt wasnt wont cant couldnt shouldnt wouldnt s t d ll re ve m o
""".split())


def tool_use_text(b):
    inp = b.get("input") or {}
    parts = [b.get("name") or ""]
    for k in ("description", "command", "file_path", "notebook_path", "path", "pattern", "url", "query",
              "subagent_type"):
        v = inp.get(k)
        if isinstance(v, str) and v:
            parts.append(v)
    if b.get("name") in ("Task", "Agent") and isinstance(inp.get("prompt"), str):
        parts.append(inp["prompt"])
    return " ".join(parts)


TOOL_HEAD, TOOL_TAIL = 2000, 1000  # index.SyncOptions defaults (ToolHead/ToolTail)


def head_tail(s, head=TOOL_HEAD, tail=TOOL_TAIL):
    """Like transcripts.HeadTail: long tool output keeps only its first head
    and last tail bytes in the index."""
    b = s.encode("utf-8")
    if len(b) <= head + tail + 64:
        return s
    return b[:head].decode("utf-8", "ignore") + "\n… [omitted] …\n" + b[-tail:].decode("utf-8", "ignore")


def tool_result_text(b, cut=True):
    c = b.get("content")
    if isinstance(c, list):
        c = "\n".join(x.get("text", "") for x in c if isinstance(x, dict) and x.get("type") == "text")
    c = c if isinstance(c, str) else ""
    return head_tail(c) if cut else c


def searchable_text(e):
    content = (e.get("message") or {}).get("content")
    if isinstance(content, str):
        return content
    out = []
    for b in content if isinstance(content, list) else []:
        if not isinstance(b, dict):
            continue
        t = b.get("type")
        if t == "text":
            out.append(b.get("text") or "")
        elif t == "thinking":
            out.append(b.get("thinking") or "")
        elif t == "tool_use":
            out.append(tool_use_text(b))
        elif t == "tool_result":
            out.append(tool_result_text(b))
    return "\n".join(out)


def load_entries():
    entries = {}
    for path in sorted(glob.glob(os.path.join(ROOT, "**", "*.jsonl"), recursive=True)):
        with open(path, encoding="utf-8") as f:
            for line in f:
                try:
                    e = json.loads(line)
                except ValueError:
                    continue
                if e.get("type") in ("user", "assistant") and e.get("uuid"):
                    e["_file"] = os.path.relpath(path, ROOT)
                    entries.setdefault(e["uuid"], e)
    return entries


def tokens(s):
    return [t for t in re.findall(r"[a-z0-9]+", s.lower()) if t not in STOP]


def stem(t):
    for suf in ("ations", "ation", "ings", "ing", "ers", "er", "ies", "es", "ed", "ly", "s"):
        if len(t) > len(suf) + 2 and t.endswith(suf):
            return t[: -len(suf)]
    return t


def norm_ident(s):
    return re.sub(r"[\s_\-./:~>]+", "", s.lower())


def main():
    qpath = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "queries.json")
    queries = json.load(open(qpath, encoding="utf-8"))
    entries = load_entries()
    errors = []
    seen_ids = set()
    per_type = collections.Counter()
    per_session = collections.Counter()

    for q in queries:
        qid = q.get("id", "?")
        for field in ("id", "type", "query", "relevant", "session", "note"):
            if field not in q:
                errors.append(f"{qid}: missing field {field}")
        if qid in seen_ids:
            errors.append(f"{qid}: duplicate id")
        seen_ids.add(qid)
        if q.get("type") not in TYPES:
            errors.append(f"{qid}: bad type {q.get('type')!r}")
        rel = q.get("relevant") or []
        if not rel and q.get("type") != "nonsense":
            errors.append(f"{qid}: no relevant entries")
        if rel and q.get("type") == "nonsense":
            errors.append(f"{qid}: a nonsense query with relevant entries")
        if len(set(rel)) != len(rel):
            errors.append(f"{qid}: duplicate uuid in relevant")
        for u in rel:
            e = entries.get(u)
            if e is None:
                errors.append(f"{qid}: uuid {u} not found in sample")
                continue
            if e.get("sessionId") != q.get("session"):
                errors.append(f"{qid}: uuid {u} has session {e.get('sessionId')}, query says {q.get('session')}")
            if not searchable_text(e).strip():
                errors.append(f"{qid}: uuid {u} has no searchable text")
            if e.get("isMeta"):
                errors.append(f"{qid}: uuid {u} is an isMeta entry")
        per_type[q.get("type")] += 1
        per_session[q.get("session")] += 1

    print(f"{len(queries)} queries; per type: {dict(per_type)}")
    files = collections.defaultdict(set)
    for e in entries.values():
        files[e.get("sessionId")].add(e["_file"].split("/")[0])
    for s, n in sorted(per_session.items(), key=lambda kv: -kv[1]):
        print(f"  {n:3d}  {s}  {sorted(files.get(s, []))}")

    print("\nparaphrase overlap with best answer (raw | stemmed):")
    for q in queries:
        if q.get("type") != "paraphrase" or not q.get("relevant") or q["relevant"][0] not in entries:
            continue
        best = searchable_text(entries[q["relevant"][0]])
        qt = set(tokens(q["query"]))
        bt = set(tokens(best))
        raw = sorted(qt & bt)
        st = sorted({stem(t) for t in qt} & {stem(t) for t in bt})
        flag = "  <-- more than one shared word" if max(len(raw), len(st)) > 1 else ""
        print(f"  {q['id']}: {len(raw)} {raw} | {len(st)} {st}{flag}")

    print("\nkeyword coverage in best answer (query words found / total):")
    for q in queries:
        if q.get("type") != "keyword" or not q.get("relevant") or q["relevant"][0] not in entries:
            continue
        best = searchable_text(entries[q["relevant"][0]]).lower()
        qt = tokens(q["query"]) or [q["query"].lower()]
        missing = [t for t in qt if t not in best]
        print(f"  {q['id']}: {len(qt) - len(missing)}/{len(qt)}" + (f"  missing {missing}" if missing else ""))

    print("\nidentifier present in best answer:")
    for q in queries:
        if q.get("type") != "identifier" or not q.get("relevant") or q["relevant"][0] not in entries:
            continue
        best = norm_ident(searchable_text(entries[q["relevant"][0]]))
        ok = norm_ident(q["query"]) in best
        print(f"  {q['id']}: {'yes' if ok else 'NO (typed differently / partial)'}  {q['query']!r}")

    print("\nkeyword/identifier relevant entries sharing under half of the query words (check by hand):")
    for q in queries:
        if q.get("type") == "paraphrase":
            continue
        qt = set(tokens(q["query"]))
        if not qt:
            continue
        for u in q.get("relevant") or []:
            if u not in entries:
                continue
            bt = {stem(t) for t in tokens(searchable_text(entries[u]))}
            shared = {t for t in qt if stem(t) in bt}
            if len(shared) * 2 < len(qt):
                print(f"  {q['id']}: {u} shares {sorted(shared)} of {sorted(qt)}")

    if errors:
        print("\nERRORS:")
        for e in errors:
            print("  " + e)
        sys.exit(1)
    print("\nall hard checks passed")


if __name__ == "__main__":
    main()
