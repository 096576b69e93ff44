"""earlyexit.integrations.inspect_ai.refine in a real Inspect eval, on Inspect's mock model
(``mockllm/model`` with scripted outputs), logs in a temporary folder."""

from __future__ import annotations

from typing import Any, Dict

from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import includes

from earlyexit import Loop
from earlyexit.integrations.inspect_ai import refine

SCORES: Dict[str, float] = {f"v{i + 1}": s for i, s in enumerate([0.40, 0.72, 0.85, 0.90, 0.86, 0.88, 0.87, 0.89, 0.88, 0.88, 0.88, 0.88])}


def scripted(text: str) -> ModelOutput:
    """A mock output with its usage given (else the mock model counts tokens with tiktoken,
    which downloads its encoding)."""
    output = ModelOutput.from_content(model="mockllm/model", content=text)
    output.usage = ModelUsage(input_tokens=100, output_tokens=20, total_tokens=120)
    return output


def test_the_solver_stops_on_the_decision_and_keeps_the_best_output(tmp_path: Any) -> None:
    bare = Loop(scale=1, max_iterations=12)
    for draft in SCORES:
        if bare.step(draft, SCORES[draft]).stop:
            break
    model = get_model("mockllm/model", custom_outputs=[scripted(d) for d in SCORES])
    task = Task(
        dataset=[Sample(input="Write the draft.", target="v4")],
        solver=refine(quality=lambda state: SCORES[state.output.completion], feedback="Make it better.", max_iterations=12),
        scorer=includes(),
    )
    [log] = eval(task, model=model, log_dir=str(tmp_path), display="none")
    assert log.status == "success", log.error
    [sample] = log.samples or []
    assert sample.output.completion == "v4" == bare.output  # the best, not the last
    kept = sample.metadata["earlyexit"]
    assert kept["trigger"] == bare.decision.trigger and kept["iterations"] == len(bare.history) and kept["best_iteration"] == 4  # type: ignore[union-attr]
    assert sample.scores is not None and sample.scores["includes"].value == "C"
    assert sum(1 for m in sample.messages if m.role == "user" and m.text == "Make it better.") == len(bare.history) - 1
