"""`earlyexit hook claude-code`: the wall time of one Stop event (process start to answer).

    python3 bench/hook/hook_bench.py BINARY [--rounds N] [--quick]

1. An event at 20 KB and at 20 MB of transcript, --fingerprint none, no check: the
   transcript is read once (the first event, shown apart), then each measured event reads
   only the turn appended since (the offset the session's state keeps).
2. The git fingerprint on a repository of 10,000 committed files (a few changed, a few
   untracked): one event each round.
Prints the medians of wall time and of CPU time (user + system of the hook's process,
less sensitive to the machine's load) and the wall time's spread (min..max). Transcripts are written here, in
the format of Claude Code 2.0.37 (one line per content block, tool results as user lines).
"""

import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

SESSION = "3f1c2a9e-7b7d-4c55-9a53-1f0e6a5b8c11"


def lines_of_turn(n, filler):
    tool = f"toolu_{n:08d}"
    usage = {"input_tokens": 3, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 900, "output_tokens": 40}
    base = {"parentUuid": None, "isSidechain": False, "userType": "external", "sessionId": SESSION,
            "version": "2.0.37", "timestamp": "2025-11-03T10:00:00.000Z"}
    return [
        dict(base, type="assistant", uuid=f"a{n}", message={"id": f"msg_{n}a", "role": "assistant", "content": [
            {"type": "tool_use", "id": tool, "name": "Bash", "input": {"command": "cargo test"}}], "usage": usage}),
        dict(base, type="user", uuid=f"u{n}", message={"role": "user", "content": [
            {"tool_use_id": tool, "type": "tool_result", "content": filler, "is_error": True}]}),
        dict(base, type="assistant", uuid=f"b{n}", message={"id": f"msg_{n}b", "role": "assistant", "content": [
            {"type": "text", "text": "Trying again."}], "usage": usage}),
    ]


def write_transcript(path, size):
    filler = "error: test failed\n" + "x" * 2000
    n = 0
    with open(path, "w") as f:
        f.write(json.dumps({"type": "user", "message": {"role": "user", "content": "Fix the failing tests."}}) + "\n")
        while f.tell() < size:
            for line in lines_of_turn(n, filler):
                f.write(json.dumps(line) + "\n")
            n += 1
    return n


def append_turn(path, n):
    with open(path, "a") as f:
        for line in lines_of_turn(n, "error: test failed"):
            f.write(json.dumps(line) + "\n")


def event(binary, project, transcript, args):
    payload = json.dumps({"session_id": SESSION, "transcript_path": transcript, "cwd": project,
                          "hook_event_name": "Stop", "stop_hook_active": True})
    env = dict(os.environ, CLAUDE_CODE_STOP_HOOK_BLOCK_CAP="1000000")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    out = subprocess.run([binary, "hook", "claude-code", *args], input=payload.encode(), capture_output=True, env=env)
    elapsed = (time.perf_counter() - start) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode != 0 or b"letting the stop through" in out.stderr:
        raise SystemExit(f"the hook failed: {out.stderr.decode()}")
    cpu = (after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) * 1000
    return elapsed, cpu


def spread(samples):
    wall = [w for w, _ in samples]
    cpu = [c for _, c in samples]
    return (f"wall median {statistics.median(wall):.2f} ms (min {min(wall):.2f}, max {max(wall):.2f}), "
            f"CPU median {statistics.median(cpu):.2f} ms, {len(samples)} events")


def transcript_rows(binary, rounds):
    args = ["--fingerprint", "none", "--max-iterations", "1000000"]
    for label, size in (("20 KB", 20 << 10), ("20 MB", 20 << 20)):
        with tempfile.TemporaryDirectory() as project, tempfile.TemporaryDirectory() as home:
            transcript = os.path.join(home, SESSION + ".jsonl")
            turns = write_transcript(transcript, size)
            real = os.path.getsize(transcript)
            first, first_cpu = event(binary, project, transcript, args)
            times = []
            for i in range(rounds):
                append_turn(transcript, turns + i)
                times.append(event(binary, project, transcript, args))
            print(f"  transcript {label} ({real:,} bytes): next event {spread(times)}; first event (reads it all) {first:.2f} ms wall, {first_cpu:.2f} ms CPU")


def git(project, *args):
    subprocess.run(["git", "-c", "user.name=b", "-c", "user.email=b@b.invalid", "-c", "commit.gpgsign=false", *args],
                   cwd=project, check=True, capture_output=True)


def git_rows(binary, rounds, files):
    with tempfile.TemporaryDirectory() as project, tempfile.TemporaryDirectory() as home:
        git(project, "init", "-q")
        for i in range(files):
            d = os.path.join(project, f"d{i // 100:03d}")
            os.makedirs(d, exist_ok=True)
            with open(os.path.join(d, f"f{i:05d}.txt"), "w") as f:
                f.write(f"file {i}\n" * 20)
        git(project, "add", "-A")
        git(project, "commit", "-q", "-m", "files")
        for i in range(5):
            with open(os.path.join(project, "d000", f"f{i:05d}.txt"), "a") as f:
                f.write("changed\n")
            with open(os.path.join(project, f"untracked{i}.txt"), "w") as f:
                f.write("new\n" * 100)
        transcript = os.path.join(home, SESSION + ".jsonl")
        write_transcript(transcript, 20 << 10)
        args = ["--fingerprint", "git", "--max-iterations", "1000000"]
        event(binary, project, transcript, args)  # the first event writes the state directory
        times = []
        for i in range(rounds):
            append_turn(transcript, 100000 + i)
            times.append(event(binary, project, transcript, args))
        print(f"  git fingerprint, {files:,} committed files (5 changed, 5 untracked): {spread(times)}")


def main():
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    binary = sys.argv[1]
    rounds = 21
    if "--quick" in sys.argv:
        rounds = 5
    if "--rounds" in sys.argv:
        rounds = max(int(sys.argv[sys.argv.index("--rounds") + 1]) * 3, 5)
    transcript_rows(binary, rounds)
    git_rows(binary, rounds, 10000)


if __name__ == "__main__":
    main()
