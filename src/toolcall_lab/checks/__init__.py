"""The lessons' answer keys: one module per lesson, named for its topic.

A lesson's check cell holds only the learner's answer and a call such as
`checks.q2(q2, run)`; the expected value is computed here, from the data the lesson
passes in (so it follows a real provider's ids as well as the scripted ones). A learner
who goes looking can read the keys, as with any answer key; they are kept off the page so
that a cell never shows its own answer.

    start_here                  the start page, one warm-up question
    one_tool_call               lesson 1, the four messages of a tool call
    why_tool_calling            lesson 2, what a loop re-sends, a wrong call, five ways to act
    on_the_wire                 lesson 3, one conversation on four wires, what each API rejects
    through_the_sdks            lesson 4, the official SDKs offline, usage, the loop by hand, own shape
    the_bill                    lesson 5, what a loop costs
    caching_and_threads         lesson 6, prompt caching, compaction, a thread on the server
    transcript_as_data          lesson 7, typed blocks, one complete match, what a loop re-sends
    frozen_history              lesson 8, frozen messages, ids and synthetic messages, usage
    your_own_provider           lesson 9, a pretend model, a broken translator, a tracer
    an_adapter_of_your_own      lesson 10, an adapter for the made-up Parts API, held to the contract
    when_the_model_misbehaves   lesson 11, broken pairings, your run_call, error results
    reading_the_stop_reason     lesson 12, each stop reason, a loop that never stops, RepeatGuard
    steering_and_guarding       lesson 13, tool choice, calls at once, strict schemas
    an_instruction_in_a_result  lesson 14, tool descriptions, an injected instruction, the permission gate
    reasoning_on_the_wire       lesson 15, reasoning in a reply and on the bill, sent back unchanged
    reasoning_across_turns      lesson 16, edited histories, OpenAI's reasoning, a change of provider
    local_models                lesson 17, local models: five servers, one spectrum, what the model reads
    reading_calls_from_text     lesson 18, parsing tool calls out of a model's raw text
    caching_for_real            lesson 19, real cache breakpoints, a cache that does nothing, OpenAI's cache
    compaction_and_server_tools lesson 20, compaction and the cache, tools the provider runs
    streaming_on_the_wire       lesson 21, a tool call arriving event by event
    when_a_stream_breaks        lesson 22, a cut stream, streamed thinking, your provider streaming, a cancel
    tools_from_another_process  lesson 23, tools on an MCP server
    what_the_server_says        lesson 24, a poisoned description, the gate, the allow-list, stdio's stdout
    structured_output           lesson 25, a reply held to a JSON Schema
    measuring_a_model           lesson 26, pass rates, not verdicts
    telling_versions_apart      lesson 27, two versions told apart, tapes, what an eval costs
    when_a_tool_misbehaves      lesson 28, a hung tool answered in time, a result capped in size
    a_run_that_outlives_its_process
                                lesson 29, an approval decided in another process, a call run once

Every key has a table of wrong answers it must reject in tests/test_checks.py, and
`SOLUTIONS` in each module holds a worked answer per question, as source text, which the
tests run through the lesson to prove the key accepts it.
"""

__all__: list[str] = []
