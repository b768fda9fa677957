"""A plausible wrong answer for every question of every lesson, as source text.

`tests/test_run_all_wrong.py` puts these in place of the `...` (the way a teacher's solved
copy takes `SOLUTIONS`) and runs each lesson top to bottom in a real kernel: a lesson whose
every answer is wrong must still run every cell, and each check must show its "✗" line.
Each answer is a mistake a learner really makes (an id copied with another case, the
count that forgets a message, a definition that skips a step), not a random value; the
wrong-answer table (tests/test_checks.py, tests/checkrows/) holds the rest.

Keyed by the lesson's topic (its key module in `toolcall_lab.checks`), so renumbering a
lesson changes nothing here.
"""

from __future__ import annotations

from toolcall_lab.checks import an_adapter_of_your_own as _adapter
from toolcall_lab.checks import transcript_as_data as _transcript
from toolcall_lab.checks import your_own_provider as _own

_WORKED = {**_own.SOLUTIONS, **_adapter.SOLUTIONS}


def _broken(name: str, right: str, wrong: str) -> str:
    """The worked `name` with one mistake a learner makes: `right` written as `wrong`."""
    assert right in _WORKED[name], (name, right)
    return _WORKED[name].replace(right, wrong)


WRONG: dict[str, dict[str, str]] = {
    "start_here": {
        "warm_up": '"42"',
    },
    "one_tool_call": {
        "my_result": 'ToolResult(request.id.upper(), get_weather(**request.args))',
        "predict_call_2": "2",
        "q1": "3",
        "q2": "two_cities.transcript[1].tool_calls[0].id",
        "exercise_1": "[ToolResult(c.id, get_weather(**c.args)) "
                      "for c in two_cities.transcript[1].tool_calls]",
    },
    "why_tool_calling": {
        "predict_doubling": "2",  # twice the calls taken for twice the bill
        "predict_tool_runs": "1",  # the model's words taken for a tool call
        "predict_readable": '{"next_slot", "book", "find_room"}',  # every value has a str()
        "my_booking_result": "str(booking)",  # its text: Python source, not fields
        "q1": "4",
        "exercise_1": '"17 * 23 - 100 = 291."',  # the sentence, not the run
    },
    "on_the_wire": {
        "my_chat_body": '{"model": "gpt-6-luna", "messages": []}',
        "predict_accepted": '{"anthropic", "responses", "chat", "ollama"}',
        "q1": "1",
        "q2": '"yes"',
        "exercise_1": "invented",  # mistake 3, already on the page
    },
    "through_the_sdks": {
        "predict_user_words": "1",  # only the question, forgetting where results travel
        "q1": "5000",  # OpenAI's count, as if Anthropic's input_tokens held the cached part too
        "exercise_1": '"overloaded"',
    },
    "the_bill": {
        "my_total": "12 * 3000",
        "q1": "20 * 286 / 1_000_000",
        "q2": '"lower"',
        "q3": "2 * 1.2 + 2 * 0.5",
        "exercise_1": "100_000 // 2000",
        "predict_tools_tokens": "one",  # the one definition the page shows, not the fifty
        "my_tools_dollars": "added / 1e6 * price.input",  # one call's, as if sent once
    },
    "caching_and_threads": {
        "predict_first_call": '"cheaper"',
        "predict_thread_bill": '"fewer"',
        "q1": '"yes"',
        "exercise_1": "1",
    },
    "local_models": {
        "predict_limit": '"cut"',
        "predict_result_role": '"tool"',
        "q1": '{"vllm", "llamacpp"}',
        "q2": "2",
        "exercise_1": '{"max_completion_tokens": 50}',
    },
    "reading_calls_from_text": {
        # the first regex a learner tries: it stops at the arguments' own closing brace
        "read_tool_calls": (
            "def read_tool_calls(text):\n"
            '    """The tool calls in a model\'s raw text."""\n'
            "    calls = []\n"
            '    for inner in re.findall(r"<tool_call>\\s*(\\{.*?\\})", text, re.DOTALL):\n'
            "        call = json.loads(inner)\n"
            '        calls.append((call["name"], call["arguments"]))\n'
            "    return calls, []\n"),
        "q1": "2",
        "exercise_1": ('\'<tool_call>\\n{"name": "get_weather", "arguments": {"city": "Rome"}}\\n'
                       '</tool_call>\\n<tool_call>\\n{"name": "get_weather", "arguments": '
                       '{"city": "Nairobi"}}\\n</tool_call>\\nI looked up both.\''),
    },
    "structured_output": {
        # Anthropic taken to be as strict as OpenAI (it lets optional properties through)
        "predict_refused": '{"anthropic": {"B", "C", "D"}, "responses": {"B", "C", "D"}, '
                           '"chat": {"B", "C", "D"}, "ollama": set()}',
        "q1": '"structured output"',  # one answer is enough... but only the database knows it
        "q2": '"object"',  # the text parses, so it is taken for the object
        "q3": '"chat"',
        # types right, but the object is left open: both vendors refuse it
        "exercise_1": ('{"type": "object", "properties": {"guest": {"type": "string"}, '
                       '"room": {"type": "integer"}, "needs_taxi": {"type": "boolean"}}, '
                       '"required": ["guest", "room", "needs_taxi"]}'),
    },
    "caching_for_real": {
        "predict_read": "823",
        "call_2_input": "(766 + 57) * 5 / 1_000_000",
        "predict_slow": "766",
        "predict_reordered": "951",  # as if the order of the tools did not matter
        "order_key": "lambda tool: tool.description",  # two tools share one: ties keep arrival order
        "exercise_1": '{"caching": "moving"}',
        "q1": '"yes"',
    },
    "compaction_and_server_tools": {
        "predict_search_billed": '"no"',  # the results taken to count from the next call on
        "headroom": "WINDOW",  # as if the reply took none of the window
        "predict_first_over": "12",  # the first call over the window itself, the reply's room forgotten
        "q1": "1",
        "q2": "10 / 1000",
        # moves back past tool results only, so the tail may start at the model's call
        "tail_start": (
            "def tail_start(messages, keep_last):\n"
            "    start = max(len(messages) - keep_last, 1)\n"
            "    while 1 < start < len(messages) and messages[start].tool_results:\n"
            "        start -= 1\n"
            "    return start\n"),
    },
    "streaming_on_the_wire": {
        "predict_run": '"finished"',  # the call's block is complete, so it looks safe to run
        # keyed by id: the pieces after a call's first carry none
        "accumulate": (
            "def accumulate(chunks):\n"
            '    """The tool calls in a streamed Chat reply: [(id, name, arguments)]."""\n'
            "    calls = {}\n"
            "    for chunk in chunks:\n"
            '        for choice in chunk.get("choices", [])[:1]:\n'
            '            for piece in choice["delta"].get("tool_calls") or []:\n'
            '                call = calls.setdefault(piece.get("id"), ["", ""])\n'
            '                call[0] = piece.get("function", {}).get("name") or call[0]\n'
            '                call[1] += piece.get("function", {}).get("arguments") or ""\n'
            "    return [(i, n, a) for i, (n, a) in calls.items() if i]\n"),
        "q1": '{"city": "Nairobi"}',  # the pieces read in arrival order
        "q2": '"chat"',  # the recorded call with the most pieces, read backwards
        "exercise_1": "1",  # one index, so one call
    },
    "when_a_stream_breaks": {
        "predict_cut": "3",  # the call was whole, so the reply and its result went in
        "predict_signatures": "11",  # one per thinking piece
        "q1": '"yes"',
        "exercise_1": "(5, 2)",  # the cut turn counted as a whole one
        "predict_refusing": '{"anthropic", "responses", "chat", "ollama"}',  # "every API refuses"
        "cancelled": 'ToolResult(reply.tool_calls[1].id, "The user rejected this call.", '
                     'is_error=True)',  # the wording that told Claude Code's users they said no
    },
    "reasoning_on_the_wire": {
        "predict_first": '"tool_call"',  # the reply is "about" the tool call
        "predict_hello": '["reasoning", "text"]',  # thinking on, so every reply starts with it
        "predict_refused": '{"c"}',  # only an edit is refused, a missing block is fine
        "q1": "1600",  # the reasoning counted beside the output, not inside it
        "exercise_1": '{"thinking": 2048}',  # forgets that the budget is part of max_tokens
        "exercise_2": 'versions["a"]',  # section 4's good call 2, of another conversation
    },
    "reasoning_across_turns": {
        "predict_invalid": "{1, 5}",  # an edit voids all the thinking, before it too
        "goes_back": 'def goes_back(block, api, model):\n'
                     '    return block.provider == {"anthropic": "anthropic", '
                     '"responses": "openai"}[api]\n',  # forgets the model and encrypted_content
        "q1": '"responses"',
        "q2": "5",  # forgets that reply 2 and its result go back too
        "exercise_1": "without_thinking(edited)",  # drops the thinking made before the edit too
    },
    "when_the_model_misbehaves": {
        # checks the tool's name, then trusts whatever arguments arrive
        "run_call": (
            "def run_call(request, tools):\n"
            "    tool = tools.get(request.name)\n"
            "    if tool is None:\n"
            "        return ToolResult(request.id, 'No such tool.', is_error=True)\n"
            "    try:\n"
            "        return ToolResult(request.id, str(tool(**request.args)))\n"
            "    except Exception as error:\n"
            "        return ToolResult(request.id, str(error), is_error=True)\n"),
        "predict_runs": "2",
        "q1": '{"a", "c", "d"}',
        "exercise_1": '{"anthropic"}',  # the one API that refused section 3's empty message
    },
    "reading_the_stop_reason": {
        "predict_last_role": '"user"',
        "predict_messages": "8",
        "q1": '{"a", "b"}',
        # counts by the arguments alone, so another tool with the same arguments is "a repeat"
        "RepeatGuard": (
            "class RepeatGuard:\n"
            "    def __init__(self, limit):\n"
            "        self.limit = limit\n"
            "        self.seen = {}\n"
            "\n"
            "    def __call__(self, call):\n"
            "        key = json.dumps(dict(call.args), sort_keys=True)\n"
            "        self.seen[key] = self.seen.get(key, 0) + 1\n"
            "        return True if self.seen[key] <= self.limit else 'a repeat'\n"),
    },
    "steering_and_guarding": {
        "predict_second_choice": '"get_weather"',
        "predict_first_done": '"Paris"',
        "q1": "2",
        # forces the calculator, but offers only the calculator
        "exercise_1": ('run_agent(ScriptedProvider([call("calculator", expression="17 * 23 - 100"), '
                       '"It is 291."]), "What is 17 * 23 - 100?", tools=[calculator], '
                       'tool_choice="calculator")'),
    },
    "an_instruction_in_a_result": {
        # forbids the one tool the injection asked for, and lets every other through
        "permission_gate": (
            "def permission_gate(call):\n"
            "    if call.name == 'delete_files':\n"
            "        return 'deleting is not allowed'\n"
            "    return True\n"),
        # the call the model makes, counted as if it ran
        "predict_guarded": "1",
        "q1": "True",
        # reads /tmp/x as tmp/x
        "careful_gate": (
            "def careful_gate(call):\n"
            "    if call.name == 'read_file':\n"
            "        return True\n"
            "    path = str(call.args.get('path', ''))\n"
            "    if call.name == 'delete_files' and path.lstrip('/').startswith('tmp/'):\n"
            "        return True\n"
            "    return f'{call.name} is not allowed here: {path!r}'\n"),
    },
    "tools_from_another_process": {
        # an isError reply read as an ordinary result: the model is told the tool worked
        "to_kit_tool": (
            "def to_kit_tool(server_tool, connection):\n"
            "    def on_the_server(**arguments):\n"
            "        result = connection.call_tool(server_tool.name, arguments)\n"
            "        return '\\n'.join(block.text for block in result.content)\n"
            "    return Tool(server_tool.name, server_tool.description or '',\n"
            "                server_tool.input_schema, on_the_server)\n"),
        "predict_result_id": '"3"',  # the JSON-RPC id of the tools/call
        "server_rows": "{2, 4, 8, 9}",  # the tool result, which carries the server's words
        "predict_handshake": "2",  # forgets the notification
        "predict_after_gone": "5",  # the question kept
        "q1": "6",  # the stateless server's count: the handshake forgotten
    },
    "what_the_server_says": {
        # a name on the list is taken as enough
        "offer": (
            "def offer(tools, allowed):\n"
            "    return [tool for tool in tools if tool.name in allowed]\n"),
        "q1": "True",
        "exercise_1": "[*connection.tools, *second.tools]",
        "server_log": "sys.stdout",  # where print() goes by default
        "predict_print": '"error"',  # the tool's line taken to reach the client
    },
    "transcript_as_data": {
        # a match that guesses for a kind it was never told about, instead of failing loudly
        "made_by": _transcript.SOLUTIONS["made_by"].replace("assert_never(block)", 'return "either"'),
        "predict_biggest": '"text"',
        "q1": '"tool_call"',
        # each result counted once: the dropped ones forgotten, as if nothing went in their place
        "exercise_1": "sum(tokens_in(r) for r in research.transcript.tool_results())",
    },
    "frozen_history": {
        "q1": "True",
        "q2": "(40, 50)",
        # the trap of section 1: replace() on the message keeps the original's id
        "exercise_1": ("Transcript(transcript.system, [transcript[0], transcript[1], "
                       "replace(transcript[2], blocks=tuple(replace(r, content='[redacted]') "
                       "for r in transcript[2].tool_results)), *transcript.messages[3:]])"),
        # the two temperatures swapped between the cities
        "exercise_2": ("Transcript(long_talk.system, [Message.user('Earlier: Paris was 22°C and "
                       "cloudy, Tokyo 18°C and sunny.', synthetic=True), *long_talk.messages[-4:]])"),
    },
    "your_own_provider": {
        # a constant usage: above zero, and an estimate of nothing
        "EchoProvider": _broken("EchoProvider", "usage = Usage(input_tokens=sent, output_tokens="
                                "estimate_tokens(words),", "usage = Usage(input_tokens=1, output_tokens=1,"),
        "predict_refused_call": "1",
        "q1": "2",
        # input printed as "out" and output as "in"
        "Traced": _broken("Traced", "{used.input_tokens} in, {used.output_tokens} out",
                          "{used.output_tokens} in, {used.input_tokens} out"),
    },
    "an_adapter_of_your_own": {
        # the model's turns called "assistant", as the other APIs call them
        "MyPartsProvider": _broken("MyPartsProvider", 'role = "model" if', 'role = "assistant" if'),
        "q1": "(2, 2)",  # a content per result, as Chat sends a tool message per result
        "exercise_1": "1",  # only the first clause that sends a result back
    },
    "measuring_a_model": {
        # trusts the answer: the right call and the fact in the answer, never looking at the result
        "my_grader": (
            "def my_grader(case, run):\n"
            "    calls = run.transcript.tool_calls()\n"
            "    right = any(c.name == case.tool and dict(c.args) == dict(case.args)\n"
            "                for c in calls)\n"
            "    return right and case.says in run.answer\n"),
        "predict_rate": "0.25",  # the slip rate, not the pass rate
        "q1": "10",  # ten in a row feels like proof
        "exercise_1": "250",  # at 80%, the rate section 3 printed
    },
    "telling_versions_apart": {
        "predict_apart": '"yes"',  # ten points looks like a lot
        "q1": "2",  # half the gap, twice the runs
        "q2": "200",  # five replays counted as five samples
        "exercise_1": "recorded.cost(model='claude-opus-5-5').total / recorded.total * 25",  # one case
    },
    "when_a_tool_misbehaves": {
        "timed_out": 'ToolResult(pending.id, "The forecast failed.")',  # no is_error, no limit
        "predict_messages": "3",  # a call given up on taken to leave no result
        "predict_tokens": "400_000",  # characters, not tokens
        # cuts to the limit and says nothing: the model reads the start as the whole page
        "cap": "def cap(text, limit):\n    return text[:limit]\n",
        "q1": "2_000",  # counted once, as if it were not sent again
        "exercise_1": '{"get_forecast": 0.8, "check_stock": 1.5, "send_invoice": 4.0}',  # at the edge
    },
    "a_run_that_outlives_its_process": {
        "my_approval": "asked.id",  # the id alone: nobody can see what they approve, and it cannot run
        "predict_calls": "2",  # as if the model were asked again before the approved call runs
        "predict_sent": "1",  # a retried resume taken to know what the failed one already did
        # looks nothing up: every resume runs the call again
        "run_once": ('def run_once(call, tools, done):\n'
                     '    """The result of `call`, run only if no call with its id ran before."""\n'
                     '    return execute(call, tools)\n'),
        "q1": "True",  # a repeat taken for a failure
        "q2": "2",  # a key by name and arguments taken to keep two real calls apart
        # both written as started: the finished call's result left out
        "ledger_calls": ('{"toolu_04": {"name": "send_invoice", "result": None}, '
                         '"toolu_05": {"name": "send_invoice", "result": None}}'),
    },
}
