# The two commands of the README, and the pieces behind them.
#
#   make demo    both engines replayed over the bundled example data (examples/data/)
#   make test    install what is missing (scripts/setup.sh), then every suite (scripts/test-all.sh)
#   make replay  loop and pyramid policies replayed over public recorded runs in DATA=<dir>
#                (default ../shared/data, beside the repository)
#
#   make artifacts  every release artifact this machine can build (wheels, sdist, npm
#                packages, crates), each installed into a clean place and its quick start run
#                (scripts/artifacts.sh: the release workflow's own steps; after `make setup`)
#   make metadata   rewrite the packages' shared metadata from Cargo.toml [workspace.package]
#                (scripts/metadata.py; `make test` checks it)
#
#   make test-integrations  the adapters (earlyexit.integrations) against the real agent frameworks
#                at the pins of tests/integrations/requirements.txt, offline, in a cached
#                .venv-integrations, and the pytest plugin under pytest 8.4 on Python 3.9
#                (scripts/test-integrations.sh; after `make setup`; .ci/run runs it after `make test`)
#
#   make bench   every benchmark figure (scripts/bench.sh; after `make setup`, long; QUICK=1 for a smoke run)
#
# Other targets: setup, test-rust, test-python, test-node, test-browser, test-packaging, test-cli
# (one suite each, after `make setup`), generate (rewrite every generated file: the JS contract
# bindings/js/api/contract.generated.mjs and its typed calls calls.generated.mjs, the unions of
# bindings/js/index.d.ts, the Python
# bindings/python/earlyexit/types.py, from the core's tables; `contract` is an alias), vectors (regenerate the conformance vectors from the
# reference implementations in ../shared/reference, or REFERENCE=<dir>), fuzz (scripts/fuzz.sh),
# check-commits (commit subjects <= 72 characters with a body, in BASE..HEAD; BASE=main),
# compare-builds (BASE, default main, and HEAD side by side: wasm sizes, then JS, Rust and
# Python speed; ARGS="--size-only" for sizes alone, ARGS="--rounds N").

SHELL := /bin/bash
REFERENCE ?= ../shared/reference
DATA ?= ../shared/data
# rustup installs cargo here; a fresh shell may not have it on PATH yet.
export PATH := $(HOME)/.cargo/bin:$(PATH)

.PHONY: test test-integrations artifacts metadata demo bench replay fuzz setup vectors generate contract check-commits compare-builds test-rust test-python test-node test-browser test-packaging test-cli

test: setup
	bash scripts/test-all.sh

test-integrations: setup
	bash scripts/test-integrations.sh

artifacts: setup
	bash scripts/artifacts.sh

metadata:
	python3 scripts/metadata.py write

demo:
	cargo run --release -p earlyexit --example demo

bench:
	bash scripts/bench.sh $(if $(QUICK),--quick)

replay:
	DATA="$(DATA)" bash scripts/replay.sh

setup:
	bash scripts/setup.sh

test-rust test-python test-node test-browser test-packaging test-cli:
	bash scripts/$@.sh

# Fuzz the core: each target FUZZ_SECONDS (default 600) in turn, then the JS layer's
# fast-check properties with FUZZ_JS_RUNS cases each and the Python property tests with
# random seeds (docs/internals/reliability.md).
fuzz:
	bash scripts/fuzz.sh

# Every generated file, from the core's and the JS contract's tables (the generator room dev/;
# `make test-rust` runs `generate --check`). `contract` is its former name.
generate contract:
	cargo run -q -p earlyexit-dev -- generate

vectors:
	node tests/vectors/generate.mjs $(REFERENCE)
	node tests/vectors/gen_bad_input.mjs $(REFERENCE)
	node tests/vectors/replay/gen_loop_replay.mjs
	node tests/vectors/gen_progress.mjs
	node tests/vectors/gen_pyramid_policy.mjs
	node tests/vectors/gen_pyramid_slices.mjs
	node tests/vectors/behavior/gen_behavior.mjs $(REFERENCE)

# Commit-message habits of a branch before it is merged; not part of `make test`.
check-commits:
	bash scripts/check-commits.sh $(or $(BASE),main)

# Two commits side by side, each built in a worktree of its own (scripts/compare-builds.sh).
compare-builds:
	bash scripts/compare-builds.sh $(or $(BASE),main) $(ARGS)
