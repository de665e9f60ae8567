"""`service-console eval run DATASET --prompt ID[@VERSION] --model M [--grader ...] [--min-pass 0.9]`: a stored
prompt tested on a dataset, for CI. Exit 0 when the pass rate is at or above `--min-pass`, 1 below it;
2 usage, 3 authentication or permission, 4 network, as the allowlist commands.

The prompt is read with the admin key (stored prompts are the organization's), the answers asked with the
API key; both come from the profile or the environment ($SERVICE_ADMIN_KEY, $SERVICE_API_KEY), never from
an argument.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from .outcome import CommandFailed, Exit, Outcome

if TYPE_CHECKING:
    from app.api.client import ServiceClient
    from app.core.evals.run import Answer, EvalRun

BELOW_THRESHOLD = 1


def parser() -> argparse.ArgumentParser:
    made = argparse.ArgumentParser(
        prog="service-console eval run",
        description="Send every row of a dataset (CSV or JSONL: a column per variable, `expected` optional) "
        "through a stored prompt, grade the answers, and pass or fail on the pass rate.",
        epilog="Exit codes: 0 pass rate at or above --min-pass; 1 below; 2 usage; 3 authentication or "
        "permission; 4 network.",
    )
    made.add_argument("dataset", type=Path)
    made.add_argument("--prompt", required=True, help="the stored prompt's id, ID@VERSION for a version")
    made.add_argument("--model", action="append", required=True, help="a model (repeat: one variant each)")
    made.add_argument(
        "--grader",
        action="append",
        default=[],
        help="exact, contains[:TEXT], regex:PATTERN, "
        "json[:SCHEMA_FILE], number[:TOLERANCE], rubric:TEXT (repeat: every one must pass)",
    )
    made.add_argument("--judge-model", help="the model that grades a rubric (default: the first --model)")
    made.add_argument(
        "--min-pass", type=float, default=1.0, help="the pass rate to reach, 0 to 1 (default 1)"
    )
    made.add_argument("--concurrency", type=int, default=8, help="requests at a time (default 8)")
    made.add_argument("--out", type=Path, help="save the run as JSON (reopened by the console)")
    made.add_argument("--profile", help="a profile saved in the console (its name or id)")
    made.add_argument("--home", type=Path, help="the console's --home folder, if it was started with one")
    made.add_argument("--json", action="store_true", help="print one JSON object: the summary and the cells")
    return made


async def _run(args: argparse.Namespace) -> tuple[Outcome, EvalRun]:
    from app.api.client import ServiceClient
    from app.core.evals.dataset import DatasetError, load
    from app.core.evals.graders import GraderError, parse_grader
    from app.core.evals.run import Answer, EvalRun, Variant
    from app.core.price_book import read_price_book

    from .target import resolve

    if not 0 <= args.min_pass <= 1 or args.concurrency < 1:
        raise CommandFailed(Exit.USAGE, "--min-pass is between 0 and 1, --concurrency at least 1.")
    try:
        dataset = load(args.dataset)
        graders = [
            parse_grader(spec, lambda path: Path(path).read_text(encoding="utf-8")) for spec in args.grader
        ]
    except (DatasetError, GraderError, OSError) as error:
        raise CommandFailed(Exit.USAGE, str(error)) from None
    target = resolve(args.profile, args.home)
    if not target.settings.api_key:
        raise CommandFailed(
            Exit.AUTH, f"No API key for {target.label}: the answers need it ($SERVICE_API_KEY)."
        )
    prompt_id, _, version = args.prompt.partition("@")
    async with ServiceClient(target.settings, target.org_id) as client:
        stored = await client.prompts.retrieve(prompt_id, version or None)
        run = EvalRun(
            dataset, [Variant(stored, model) for model in args.model], graders, concurrency=args.concurrency
        )
        run.prices = (await read_price_book(client, target.brand)).prices  # the Playground's prices

        async def send(body: dict[str, Any]) -> Answer:
            from app.api.requests import ResponseCreateParams

            return Answer.of(await client.responses.create(cast(ResponseCreateParams, body)))

        await run.run(send, _judge(client, args.judge_model or args.model[0]))
    if run.failures and len(run.failures) == run.size:  # nothing answered: the service's own reason
        raise run.failures[0]
    return _outcome(run, args.min_pass), run


def _judge(client: ServiceClient, model: str) -> Any:
    async def judge(instructions: str, question: str, schema: dict[str, Any]) -> dict[str, Any]:
        from app.api.requests import ResponseCreateParams

        body = {
            "model": model,
            "instructions": instructions,
            "input": question,
            "text": {"format": {"type": "json_schema", "name": "verdict", "schema": schema, "strict": True}},
        }
        response = await client.responses.create(cast(ResponseCreateParams, body))
        verdict = json.loads(response.output_text)
        return verdict if isinstance(verdict, dict) else {}

    return judge


def _outcome(run: EvalRun, min_pass: float) -> Outcome:
    lines = []
    for summary in run.summary():
        lines.append(
            f"{summary.variant}: {summary.passed}/{summary.done} passed ({summary.pass_rate:.0%}), "
            f"median {summary.median_seconds * 1000:.0f} ms, {summary.input_tokens}+{summary.output_tokens} tokens, "
            + ("cost not known" if summary.cost is None else f"${summary.cost:.6f}")
        )
    rate = run.pass_rate()
    lines.append(f"Pass rate {rate:.1%} ({'at or above' if rate >= min_pass else 'below'} {min_pass:.1%}).")
    data = run.to_json()
    data.update(pass_rate=rate, min_pass=min_pass, passed=rate >= min_pass)
    return Outcome(lines, data)


def main(argv: list[str]) -> int:
    from . import _print_failure, failure_of

    if argv[:1] != ["run"]:
        print(
            "usage: service-console eval run DATASET --prompt ID[@VERSION] --model M [...]", file=sys.stderr
        )
        return int(Exit.USAGE)
    args = parser().parse_args(argv[1:])
    try:
        outcome, run = asyncio.run(_run(args))
    except KeyboardInterrupt:
        return 130
    except Exception as error:
        failed = failure_of(error)
        _print_failure(failed, args.json)
        return int(failed.code)
    if args.out:
        args.out.write_text(json.dumps(run.to_json()), encoding="utf-8")
    if args.json:
        print(json.dumps(outcome.data, sort_keys=True))
    else:
        print("\n".join(outcome.lines))
    return int(Exit.DONE) if outcome.data["passed"] else BELOW_THRESHOLD
