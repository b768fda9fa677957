"""What the model reads (a chat template, rendered) and reading tool calls back out of raw text.

The expected prompt below was checked by hand against the template's source, statement by
statement, and the renderer was checked once (2026-11-30) against the rendering printed in
Qwen's function-calling guide for Qwen2.5 (two tools, two parallel calls, two results, an
answer), which it reproduces character for character. transformers is not installed here, so
`apply_chat_template` itself is not run; `test_rendered_like_apply_chat_template` pins the
environment it uses instead.
"""

import json
import subprocess
import sys

import pytest

from toolcall_lab import Message, ScriptedProvider, TextBlock, ToolCall, ToolResult, Transcript, run_agent
from toolcall_lab.errors import UsageError, UsageTypeError
from toolcall_lab.examples import PARIS_QUESTION, SYSTEM_PROMPT, weather_policy
from toolcall_lab.template import (
    TEMPLATES,
    ParsedOutput,
    Span,
    chat_messages,
    parse_tool_calls,
    render,
    tool_schemas,
    view,
)
from toolcall_lab.tool import execute, tool_map
from toolcall_lab.tools import calculator, get_weather

PARIS = run_agent(ScriptedProvider(weather_policy), PARIS_QUESTION, tools=[get_weather],
                  system=SYSTEM_PROMPT).transcript
#: What the model had read when it wrote its answer: the question, its call, the result.
SECOND_CALL = Transcript(PARIS.system, PARIS.messages[:3])

SCHEMA = ('{"type": "function", "function": {"name": "get_weather", "description": "Current weather for '
          'one city. Use it for any question about today\'s weather.", "parameters": {"type": "object", '
          '"properties": {"city": {"type": "string", "description": "the city\'s name in English, e.g. '
          '\\"Paris\\""}}, "required": ["city"], "additionalProperties": false}}}')

INSTRUCTION = ("For each function call, return a json object with function name and arguments within "
               "<tool_call></tool_call> XML tags:")
EXPECTED_SECOND_CALL = f"""<|im_start|>system
You are a helpful assistant.

# Tools

You may call one or more functions to assist with the user query.

You are provided with function signatures within <tools></tools> XML tags:
<tools>
{SCHEMA}
</tools>

{INSTRUCTION}
<tool_call>
{{"name": <function-name>, "arguments": <args-json-object>}}
</tool_call><|im_end|>
<|im_start|>user
What's the weather in Paris?<|im_end|>
<|im_start|>assistant
<tool_call>
{{"name": "get_weather", "arguments": {{"city": "Paris"}}}}
</tool_call><|im_end|>
<|im_start|>user
<tool_response>
18°C, sunny
</tool_response><|im_end|>
<|im_start|>assistant
"""


# -- the template and its source ----------------------------------------------------------------------
def test_the_shipped_template_records_its_model_source_and_licence():
    qwen = TEMPLATES["qwen2.5"]
    assert qwen.model == "Qwen/Qwen2.5-7B-Instruct" and qwen.licence == "Apache-2.0"
    assert qwen.source.startswith("https://huggingface.co/Qwen/Qwen2.5-7B-Instruct/")
    assert "/blob/eaca756ecca033e6fdd241dad091974a2c0354ff/" in qwen.copied_from
    assert len(qwen.text) == 2507 and qwen.text.startswith("{%- if tools %}")
    assert "<tool_call>" in qwen.text and "<tool_response>" in qwen.text


def test_the_licence_text_ships_beside_the_template():
    from importlib import resources

    folder = resources.files("toolcall_lab") / "data" / "chat_templates"
    assert "Apache License" in (folder / "LICENSE-Apache-2.0.txt").read_text(encoding="utf-8")


# -- rendering ----------------------------------------------------------------------------------------
def test_the_paris_prompt_is_exactly_what_the_template_writes():
    assert render(SECOND_CALL, [get_weather]) == EXPECTED_SECOND_CALL


def test_the_schema_and_the_result_are_plain_text_in_the_prompt():
    prompt = render(SECOND_CALL, [get_weather])
    assert SCHEMA in prompt
    assert "<tool_response>\n18°C, sunny\n</tool_response>" in prompt
    assert "toolu_01" not in prompt  # no ids: the order pairs a result with its call


def test_a_finished_run_ends_with_the_answer_and_no_new_turn_when_asked():
    prompt = render(PARIS, [get_weather], add_generation_prompt=False)
    assert prompt.endswith("<|im_start|>assistant\nIt's 18°C and sunny in Paris.<|im_end|>\n")


def test_without_tools_there_is_no_tool_section_and_the_template_brings_its_own_system_prompt():
    prompt = render(Transcript(messages=[Message.user("Hi")]))
    assert prompt == ("<|im_start|>system\nYou are Qwen, created by Alibaba Cloud. You are a helpful "
                      "assistant.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n")


def test_an_error_result_says_so_in_words_since_the_prompt_has_no_flag():
    call = ToolCall("toolu_09", "get_weather", {"city": "Atlantis"})
    talk = Transcript(messages=[Message.user("Atlantis?"), Message.assistant(call),
                                Message.results([ToolResult("toolu_09", "no weather data", is_error=True)])])
    assert "<tool_response>\nError: no weather data\n</tool_response>" in render(talk, [get_weather])


def test_parallel_results_share_one_user_turn():
    two = run_agent(ScriptedProvider(weather_policy), "Weather in Paris and Tokyo?", tools=[get_weather])
    prompt = render(Transcript(messages=two.transcript.messages[:3]), [get_weather])
    assert prompt.count('<tool_call>\n{"name": "get_weather"') == 2
    assert "</tool_response>\n<tool_response>" in prompt
    assert prompt.count("<|im_start|>user") == 2  # the question, then both results together


def test_messages_and_tools_take_the_shapes_apply_chat_template_expects():
    messages = chat_messages(SECOND_CALL)
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "tool"]
    assert messages[2]["tool_calls"][0]["function"] == {"name": "get_weather", "arguments": {"city": "Paris"}}
    assert messages[3] == {"role": "tool", "tool_call_id": "toolu_01", "content": "18°C, sunny"}
    assert tool_schemas([calculator])[0]["type"] == "function"
    assert json.loads(json.dumps(tool_schemas([get_weather]))) == [json.loads(SCHEMA)]


def test_rendered_like_apply_chat_template():
    # transformers' chat_template_utils: an immutable sandbox, trimmed blocks, its own tojson
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    from toolcall_lab.template import _compiled

    environment = _compiled(TEMPLATES["qwen2.5"].text).environment
    assert isinstance(environment, ImmutableSandboxedEnvironment)
    assert environment.trim_blocks and environment.lstrip_blocks
    assert environment.filters["tojson"]({"a": "é<"}) == '{"a": "é<"}'  # no HTML escaping, no \\u
    with pytest.raises(Exception, match="no"):
        environment.globals["raise_exception"]("no")


def test_a_template_that_raises_says_which_and_why(monkeypatch):
    import toolcall_lab.template as module

    with pytest.raises(UsageError, match="no chat template named 'llama'"):
        render(SECOND_CALL, template="llama")
    with pytest.raises(UsageTypeError, match="expected a Transcript"):
        render([{"role": "user", "content": "Hi"}])
    monkeypatch.setattr(module, "_read", lambda file: "{{ raise_exception('Roles must alternate') }}")
    with pytest.raises(UsageError, match="the qwen2.5 chat template refused this conversation: Roles must"):
        render(SECOND_CALL)


@pytest.mark.parametrize(("source", "failed"), [
    ("{{ 1 / 0 }}", "ZeroDivisionError: division by zero"),
    ("{{ 2.0 ** 100000 }}", "OverflowError"),
    ("{% include 'header.jinja' %}", "TypeError: no loader for this environment specified"),
    ("{% import 'macros.jinja' as m %}", "TypeError: no loader"),
    ("{% macro again() %}{{ again() }}{% endmacro %}{{ again() }}", "RecursionError"),
    ("{{ 10 ** 5000 }}", "ValueError: Exceeds the limit"),
], ids=["zero-division", "overflow", "include", "import", "recursion", "huge-int"])
def test_a_template_that_fails_while_rendering_is_one_usage_error(monkeypatch, source, failed):
    # issue 19, item 18: these escaped as Python's own errors
    import toolcall_lab.template as module

    monkeypatch.setattr(module, "_read", lambda file: source)
    for show in (render, view):
        with pytest.raises(UsageError) as caught:
            show(SECOND_CALL)
        said = str(caught.value)
        assert said.startswith(f"the qwen2.5 chat template failed while rendering this conversation "
                               f"({failed}")
        assert "the template itself is at fault" in said


@pytest.mark.slow
def test_importing_the_module_does_not_import_jinja2():
    code = "import toolcall_lab.template, sys; print('jinja2' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    assert out.strip() == "False"


# -- the view -----------------------------------------------------------------------------------------
def test_the_view_is_the_prompt_cut_into_its_sources():
    shown = view(SECOND_CALL, [get_weather])
    assert shown.text == EXPECTED_SECOND_CALL
    assert [s.source for s in shown.spans if s.source != "template"] == ["system", "tools", "user", "call",
                                                                         "call", "result"]
    assert [s.text for s in shown.spans if s.source == "result"] == ["18°C, sunny"]
    assert next(s.text for s in shown.spans if s.source == "tools") == SCHEMA
    assert shown.characters()["tools"] == len(SCHEMA)
    assert repr(shown) == f"PromptView('qwen2.5', {len(EXPECTED_SECOND_CALL)} characters)"


def test_the_printed_view_marks_each_line():
    lines = str(view(SECOND_CALL, [get_weather])).splitlines()
    assert lines[0] == "template  │ <|im_start|>system"
    assert lines[1] == "system    │ You are a helpful assistant."
    assert f"tools     │ {SCHEMA}" in lines
    assert 'call      │ {"name": "get_weather", "arguments": {"city": "Paris"}}' in lines
    assert "result    │ 18°C, sunny" in lines
    assert lines[-1] == "template  │ <|im_start|>assistant"


def test_the_html_view_colours_the_parts_and_escapes_the_text():
    page = view(SECOND_CALL, [get_weather])._repr_html_()
    assert 'title="result"' in page and 'title="tools"' in page
    assert "&lt;|im_start|&gt;" in page and "<|im_start|>" not in page


def test_words_the_template_also_uses_are_still_the_users():
    talk = Transcript(messages=[Message.user("XML tags")])
    spans = view(talk, [get_weather]).spans
    assert [s.source for s in spans].count("user") == 1
    user = next(i for i, s in enumerate(spans) if s.source == "user")
    assert spans[user - 1].text.endswith("<|im_start|>user\n")  # not the instructions' "XML tags"


def test_a_malformed_call_is_shown_as_the_quoted_text_it_was():
    call = ToolCall("call_1", "get_weather", raw_args='{"city": "Par')
    shown = view(Transcript(messages=[Message.user("Paris?"), Message.assistant(call)]), [get_weather],
                 add_generation_prompt=False)
    assert Span("call", json.dumps('{"city": "Par')) in shown.spans


def test_a_template_that_reads_inside_the_strings_is_cut_by_searching(monkeypatch):
    import toolcall_lab.template as module

    peeking = ("{% for m in messages %}<{{ m.role }}>{% if m.content.startswith('W') %}!{% endif %}"
               "{{ m.content }}{% endfor %}")
    monkeypatch.setattr(module, "_read", lambda file: peeking)
    shown = view(Transcript(messages=[Message.user("What now?")]))
    assert shown.text == "<user>!What now?"
    assert shown.spans == (Span("template", "<user>!"), Span("user", "What now?"))


# -- parsing ------------------------------------------------------------------------------------------
def tag(body):
    return f"<tool_call>\n{body}\n</tool_call>"


PARIS_CALL = '{"name": "get_weather", "arguments": {"city": "Paris"}}'
TOKYO_CALL = '{"name": "get_weather", "arguments": {"city": "Tokyo"}}'


def test_one_call():
    assert parse_tool_calls(tag(PARIS_CALL)) == ParsedOutput(
        "", (ToolCall("call_1", "get_weather", {"city": "Paris"}),), ())


def test_two_calls_in_order_with_their_own_ids():
    parsed = parse_tool_calls(tag(PARIS_CALL) + "\n" + tag(TOKYO_CALL))
    assert [(c.id, c.args["city"]) for c in parsed.calls] == [("call_1", "Paris"), ("call_2", "Tokyo")]
    assert parsed.problems == () and parsed.text == ""


def test_prose_around_the_tag_is_kept_as_the_text():
    parsed = parse_tool_calls("Let me check.\n" + tag(PARIS_CALL) + "\nOne moment.")
    assert parsed.text == "Let me check.\nOne moment."
    assert [c.name for c in parsed.calls] == ["get_weather"] and parsed.problems == ()


def test_a_plain_answer_has_no_calls_and_no_problems():
    assert parse_tool_calls("It's 18°C and sunny in Paris.") == ParsedOutput("It's 18°C and sunny in Paris.")


def test_malformed_json_is_a_problem_and_a_malformed_call_the_loop_answers_with_an_error():
    parsed = parse_tool_calls(tag('{"name": "get_weather", "arguments": {"city": "Paris"}'))
    assert parsed.problems == ("tool call 1 (get_weather) cannot be read: its text is not a JSON object.",)
    [call] = parsed.calls
    assert call.malformed and call.name == "get_weather" and call.raw_args.startswith('{"name"')
    result = execute(call, tool_map([get_weather]))
    assert result.is_error and "not a valid JSON object" in result.content


def test_an_unclosed_tag_is_read_to_the_end_of_the_text():
    parsed = parse_tool_calls("<tool_call>\n" + PARIS_CALL)
    assert [c.args for c in parsed.calls] == [{"city": "Paris"}] and parsed.problems == ()
    cut = parse_tool_calls('<tool_call>\n{"name": "get_weather", "arguments": {"ci')
    assert cut.problems == ("tool call 1 (get_weather) cannot be read: its text is not a JSON object, "
                            "and its tag was never closed.",)


@pytest.mark.parametrize("arguments", [{"city": "Lima"}, json.dumps({"city": "Lima"})],
                         ids=["object", "string"])
def test_arguments_as_an_object_or_as_a_string_of_json(arguments):
    parsed = parse_tool_calls(tag(json.dumps({"name": "get_weather", "arguments": arguments})))
    assert parsed.calls == (ToolCall("call_1", "get_weather", {"city": "Lima"}),) and parsed.problems == ()


@pytest.mark.parametrize(("body", "says"), [
    ('{"arguments": {"city": "Paris"}}', 'tool call 1 cannot be read: it has no "name".'),
    ('{"name": "get_weather", "arguments": "Paris"}',
     'tool call 1 (get_weather) cannot be read: "arguments" is not a JSON object.'),
    ('["get_weather", "Paris"]', "tool call 1 cannot be read: its text is not a JSON object."),
])
def test_a_tag_that_is_json_but_not_a_call_is_a_problem(body, says):
    parsed = parse_tool_calls(tag(body))
    assert parsed.problems == (says,) and parsed.calls[0].malformed


def nested(levels):
    """Arguments that are `levels` objects deep: {"a": {"a": ... 1}}."""
    return '{"a": ' * (levels - 1) + '{"a": 1' + "}" * levels


def test_arguments_nested_past_the_limit_are_a_malformed_call_the_loop_answers():
    # issue 19, item 15: 101 levels raised UsageError out of parse_tool_calls
    assert parse_tool_calls(tag(f'{{"name": "get_weather", "arguments": {nested(100)}}}')).problems == ()
    for arguments in (nested(101), json.dumps(nested(101)), nested(5000)):
        parsed = parse_tool_calls(tag(f'{{"name": "get_weather", "arguments": {arguments}}}'))
        [call] = parsed.calls
        assert call.malformed and call.name == "get_weather", arguments[:20]
        assert parsed.problems in (
            ("tool call 1 (get_weather) cannot be read: its arguments nest more than 100 levels deep.",),
            ("tool call 1 (get_weather) cannot be read: its text is not a JSON object.",))  # 5000: the tag
        result = execute(call, tool_map([get_weather]))
        assert result.is_error and "not a valid JSON object" in result.content


@pytest.mark.parametrize("number", ["NaN", "Infinity", "-Infinity", "1e999"])
def test_arguments_holding_a_number_json_cannot_write_are_a_malformed_call(number):
    # issue 19, item 9: NaN was taken, and the transcript then could not be saved or sent
    for arguments in (f'{{"city": {number}}}', json.dumps(f'{{"city": {number}}}')):
        parsed = parse_tool_calls(tag(f'{{"name": "get_weather", "arguments": {arguments}}}'))
        assert parsed.problems == ("tool call 1 (get_weather) cannot be read: its arguments hold a number "
                                   "JSON cannot write (NaN, Infinity, or one too large such as 1e999).",)
        result = execute(parsed.calls[0], tool_map([get_weather]))
        assert result.is_error and "not a valid JSON object" in result.content
        Transcript(messages=[Message.user("Paris?"), parsed.message(), Message.results([result])]).to_json()


def test_a_lone_surrogate_in_the_raw_text_is_replaced_where_it_enters():
    [call] = parse_tool_calls(tag('{"name": "get_weather\ud83d", "arguments": {"city": "Paris"}}')).calls
    assert call.name == "get_weather\ufffd"
    assert parse_tool_calls("Hi \ud83d").text == "Hi \ufffd"


def test_the_parsed_reply_becomes_the_kits_message():
    parsed = parse_tool_calls("Checking.\n" + tag(PARIS_CALL), id_prefix="qwen_")
    message = parsed.message()
    assert message.role == "assistant"
    assert message.blocks == (TextBlock("Checking."), ToolCall("qwen_1", "get_weather", {"city": "Paris"}))


def test_what_the_template_writes_the_parser_reads_back():
    prompt = render(SECOND_CALL, [get_weather])
    reply = prompt.split("<|im_start|>assistant\n")[1].split("<|im_end|>")[0]
    calls = parse_tool_calls(reply).calls
    assert [(c.name, dict(c.args)) for c in calls] == [("get_weather", {"city": "Paris"})]


def test_the_parser_takes_text_only():
    with pytest.raises(UsageTypeError, match="raw text"):
        parse_tool_calls(b"<tool_call>")
