// JavaScript clients nobody here wrote, each through the tool round trip against the API double.
//
// The round trip: the model asks for `get_weather`, the client's own code runs it, the client
// answers with the call's id, and the model answers from the result. Each setup below is one
// client's documented way of doing that (its own loop helper where it has one), pointed at the
// double at TOOLCALL_LAB_DOUBLE_URL (its root, e.g. http://127.0.0.1:8765). Every request and
// response goes through a recording `fetch` (each client takes one), so the ids are read off the
// wire, not off the client's objects: the ids the model's replies carried, and the ids the
// client's answers named.
//
// Prints one JSON line per setup: {name, client, version, api, ok, called, answered, runs,
// answer, requests, thread, failed}. `failed` says what went wrong in one line (the client's error message, which
// for a refused request carries the double's own words). Run from tests/js:
//     TOOLCALL_LAB_DOUBLE_URL=http://127.0.0.1:8765 node clients.mjs [name ...]
// tests/test_js_clients.py starts a double and runs this.

import { readFileSync } from 'node:fs';

import Anthropic from '@anthropic-ai/sdk';
import { betaTool } from '@anthropic-ai/sdk/helpers/beta/json-schema';
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, stepCountIs, streamText, tool } from 'ai';
import { Ollama } from 'ollama';
import { createOllama } from 'ollama-ai-provider-v2';
import OpenAI from 'openai';
import { z } from 'zod';

globalThis.AI_SDK_LOG_WARNINGS = false; // the AI SDK prints its warnings on the console

const ROOT = (process.env.TOOLCALL_LAB_DOUBLE_URL ?? '').replace(/\/$/, '');
const KEY = 'sk-js-clients-not-a-real-key';
const QUESTION = "What's the weather in Paris?";
const ANSWER = "It's 18°C and sunny in Paris.";  // what the double's weather model says from the result
const WEATHER = { Paris: '18°C, sunny' };
const SCHEMA = {
  type: 'object',
  properties: { city: { type: 'string', description: 'The city, e.g. "Paris"' } },
  required: ['city'],
  additionalProperties: false,
};
const DESCRIPTION = 'Current weather for one city.';
const MODELS = { anthropic: 'claude-haiku-5-5', openai: 'gpt-6-luna', ollama: 'qwen3:4b' };
// gpt-6-luna takes function tools on Chat Completions only at reasoning_effort "none" (its model
// page; the double holds it to that, src/toolcall_lab/models.py `chat_tools_effort`), so every
// Chat setup asks for it, as its client documents.
const CHAT = { model: MODELS.openai, reasoning_effort: 'none' };
const TIMEOUT_MS = 30_000;

// A setup's client is one package, or "ai + @ai-sdk/openai" (the AI SDK and its provider): its
// version is theirs, joined the same way ("6.0.333 + 3.0.141").
function version(client) {
  return client.split(' + ').map((pkg) => {
    const url = new URL(`./node_modules/${pkg}/package.json`, import.meta.url);
    return JSON.parse(readFileSync(url, 'utf8')).version;
  }).join(' + ');
}

// -- one setup's world: its tool, its recording fetch --------------------------------------------
class Run {
  constructor() {
    this.runs = [];       // the cities the client's code looked up, in order
    this.exchanges = [];  // {url, body, text}: what was sent, and what came back
    this.pending = [];
    this.fetch = async (input, init) => {
      const url = typeof input === 'string' ? input : input.url ?? String(input);
      const sent = init?.body ?? (input instanceof Request ? await input.clone().text() : undefined);
      const exchange = { url, body: parse(typeof sent === 'string' ? sent : undefined), text: '' };
      this.exchanges.push(exchange);
      const response = await fetch(input, init);
      // subtle: read a copy, so a stream reaches the client as it comes and is kept whole here
      this.pending.push(response.clone().text().then((text) => { exchange.text = text; }, () => {}));
      return response;
    };
  }

  weather(city) {
    this.runs.push(city);
    const found = Object.keys(WEATHER).find((known) => known.toLowerCase() === String(city).trim().toLowerCase());
    if (!found) throw new Error(`no weather data for ${JSON.stringify(city)}`);
    return WEATHER[found];
  }

  async settled() {
    await Promise.all(this.pending);
  }
}

function parse(text) {
  if (text === undefined) return undefined;
  try { return JSON.parse(text); } catch { return undefined; }
}

// The JSON objects in a body: the body itself, each SSE `data:` line, or each NDJSON line.
function objects(text) {
  const whole = parse(text);
  if (whole !== undefined) return [whole];
  return text.split(/\r?\n/).map((line) => line.replace(/^data:\s?/, '')).map(parse).filter((o) => o && typeof o === 'object');
}

// -- the ids on the wire, per API --------------------------------------------------------------
// called: the ids of the calls the model's replies asked for; answered: the ids the client's
// later requests gave their results. Ollama's calls carry no id: a call is named by its function.
const WIRE = {
  anthropic: {
    called: (o) => [
      ...(o.content ?? []).filter((b) => b?.type === 'tool_use').map((b) => b.id),
      ...(o.type === 'content_block_start' && o.content_block?.type === 'tool_use' ? [o.content_block.id] : []),
    ],
    answered: (body) => (body.messages ?? []).flatMap((m) => Array.isArray(m.content) ? m.content : [])
      .filter((b) => b?.type === 'tool_result').map((b) => b.tool_use_id),
  },
  responses: {
    called: (o) => [
      ...(o.object === 'response' ? o.output ?? [] : []).filter((i) => i?.type === 'function_call').map((i) => i.call_id),
      ...(o.type === 'response.output_item.added' && o.item?.type === 'function_call' ? [o.item.call_id] : []),
    ],
    answered: (body) => (Array.isArray(body.input) ? body.input : [])
      .filter((i) => i?.type === 'function_call_output').map((i) => i.call_id),
  },
  chat: {
    called: (o) => (o.choices ?? []).flatMap((c) => c.message?.tool_calls ?? c.delta?.tool_calls ?? [])
      .map((c) => c.id).filter((id) => id),
    answered: (body) => (body.messages ?? []).filter((m) => m.role === 'tool').map((m) => m.tool_call_id),
  },
  ollama: {
    called: (o) => (o.message?.tool_calls ?? []).map((c) => c.function?.name),
    // a result names its call by `tool_name`, or by an id the client made up for its own call
    answered: (body) => {
      const named = new Map((body.messages ?? []).flatMap((m) => m.tool_calls ?? []).map((c) => [c.id, c.function?.name]));
      return (body.messages ?? []).filter((m) => m.role === 'tool')
        .map((m) => m.tool_name ?? named.get(m.tool_call_id) ?? '(unnamed)');
    },
  },
};

function apiOf(url) {
  const path = new URL(url).pathname;
  if (path.endsWith('/messages')) return 'anthropic';
  if (path.endsWith('/responses')) return 'responses';
  if (path.endsWith('/chat/completions')) return 'chat';
  if (path.endsWith('/api/chat')) return 'ollama';
  return undefined;
}

function idsOnTheWire(exchanges) {
  const called = [], answered = [];
  for (const { url, body, text } of exchanges) {
    const wire = WIRE[apiOf(url)];
    if (!wire) continue;
    if (body) for (const id of wire.answered(body)) if (!answered.includes(id)) answered.push(id);
    for (const o of objects(text)) for (const id of wire.called(o)) if (!called.includes(id)) called.push(id);
  }
  return { called, answered };
}

// -- the setups ----------------------------------------------------------------------------------
const openai = (run) => new OpenAI({ baseURL: `${ROOT}/v1`, apiKey: KEY, fetch: run.fetch });
const anthropic = (run) => new Anthropic({ baseURL: ROOT, apiKey: KEY, fetch: run.fetch });
const chatTool = { type: 'function', function: { name: 'get_weather', description: DESCRIPTION, parameters: SCHEMA } };
const responsesTool = { type: 'function', name: 'get_weather', description: DESCRIPTION, parameters: SCHEMA, strict: false };
const anthropicTool = { name: 'get_weather', description: DESCRIPTION, input_schema: SCHEMA };
const ollamaTool = chatTool;

// The loop of the two `messages` APIs whose replies carry `tool_calls` (Chat, Ollama), written by
// hand: ask, run each call, answer it with a `tool` message (`answer(call)`), ask again.
async function toolCallsLoop(ask, answer) {
  const messages = [{ role: 'user', content: QUESTION }];
  for (let turn = 0; turn < 5; turn++) {
    const message = await ask(messages);
    messages.push(message);
    if (!message.tool_calls?.length) return message.content;
    for (const call of message.tool_calls) messages.push({ role: 'tool', ...answer(call) });
  }
  throw new Error('no answer after 5 turns');
}

// Chat answers a call by its id, its arguments a JSON string.
const chatLoop = (run, ask) => toolCallsLoop(ask, (call) => (
  { tool_call_id: call.id, content: run.weather(JSON.parse(call.function.arguments).city) }));

// A streamed Chat reply put back together from its deltas, by each call's `index`.
async function chatFromStream(stream) {
  const message = { role: 'assistant', content: '', tool_calls: [] };
  for await (const chunk of stream) {
    const delta = chunk.choices?.[0]?.delta ?? {};
    message.content += delta.content ?? '';
    for (const piece of delta.tool_calls ?? []) {
      const call = (message.tool_calls[piece.index] ??= { id: '', type: 'function', function: { name: '', arguments: '' } });
      if (piece.id) call.id = piece.id;
      if (piece.function?.name) call.function.name = piece.function.name;
      call.function.arguments += piece.function?.arguments ?? '';
    }
  }
  if (!message.tool_calls.length) delete message.tool_calls;
  return message;
}

function responsesResults(run, output) {
  return output.filter((i) => i.type === 'function_call').map((call) => ({
    type: 'function_call_output', call_id: call.call_id, output: run.weather(JSON.parse(call.arguments).city),
  }));
}

async function responsesLoop(run, ask) {
  let input = [{ role: 'user', content: QUESTION }];
  for (let turn = 0; turn < 5; turn++) {
    const response = await ask(input);
    const results = responsesResults(run, response.output);
    if (!results.length) return response.output_text;
    input = [...input, ...response.output, ...results];
  }
  throw new Error('no answer after 5 turns');
}

async function anthropicLoop(run, ask) {
  const messages = [{ role: 'user', content: QUESTION }];
  for (let turn = 0; turn < 5; turn++) {
    const message = await ask(messages);
    messages.push({ role: 'assistant', content: message.content });
    const calls = message.content.filter((b) => b.type === 'tool_use');
    if (!calls.length) return message.content.filter((b) => b.type === 'text').map((b) => b.text).join('');
    messages.push({ role: 'user', content: calls.map((c) => ({ type: 'tool_result', tool_use_id: c.id, content: run.weather(c.input.city) })) });
  }
  throw new Error('no answer after 5 turns');
}

// Ollama answers a call by its tool's name, its arguments an object.
const ollamaLoop = (run, ask) => toolCallsLoop(ask, (call) => (
  { tool_name: call.function.name, content: run.weather(call.function.arguments.city) }));

function aiTool(run) {
  return tool({
    description: DESCRIPTION,
    inputSchema: z.object({ city: z.string().describe('The city, e.g. "Paris"') }),
    execute: async ({ city }) => run.weather(city),
  });
}

// The Vercel AI SDK's loop: generateText / streamText run the tool and ask again until a step answers.
function aiSdk(model, providerOptions) {
  return {
    generateText: async (run) => {
      const result = await generateText({ model: model(run), providerOptions, prompt: QUESTION, tools: { get_weather: aiTool(run) }, stopWhen: stepCountIs(5) });
      return result.text;
    },
    streamText: async (run) => {
      let failure;
      const result = streamText({
        model: model(run), providerOptions, prompt: QUESTION, tools: { get_weather: aiTool(run) }, stopWhen: stepCountIs(5),
        onError: ({ error }) => { failure ??= error; },
      });
      const text = await result.text;
      if (failure) throw failure;
      return text;
    },
  };
}

const AI_MODELS = {
  'openai-responses': ['@ai-sdk/openai', 'responses', (run) => createOpenAI({ baseURL: `${ROOT}/v1`, apiKey: KEY, fetch: run.fetch }).responses(MODELS.openai)],
  'openai-chat': ['@ai-sdk/openai', 'chat', (run) => createOpenAI({ baseURL: `${ROOT}/v1`, apiKey: KEY, fetch: run.fetch }).chat(MODELS.openai),
    { openai: { reasoningEffort: 'none' } }],
  anthropic: ['@ai-sdk/anthropic', 'anthropic', (run) => createAnthropic({ baseURL: `${ROOT}/v1`, apiKey: KEY, fetch: run.fetch })(MODELS.anthropic)],
  'openai-compatible': ['@ai-sdk/openai-compatible', 'chat', (run) => createOpenAICompatible({ name: 'double', baseURL: `${ROOT}/v1`, apiKey: KEY, fetch: run.fetch }).chatModel(MODELS.openai),
    { double: { reasoningEffort: 'none' } }],
  ollama: ['ollama-ai-provider-v2', 'ollama', (run) => createOllama({ baseURL: `${ROOT}/api`, fetch: run.fetch })(MODELS.ollama)],
};

const SETUPS = [
  ['openai chat.completions.create', 'openai', 'chat', (run) => chatLoop(run, async (messages) =>
    (await openai(run).chat.completions.create({ ...CHAT, messages, tools: [chatTool] })).choices[0].message)],
  ['openai chat.completions.create stream', 'openai', 'chat', (run) => chatLoop(run, async (messages) =>
    chatFromStream(await openai(run).chat.completions.create({ ...CHAT, messages, tools: [chatTool], stream: true })))],
  ['openai chat.completions.runTools', 'openai', 'chat', async (run) => {
    const runner = openai(run).chat.completions.runTools({
      ...CHAT, messages: [{ role: 'user', content: QUESTION }],
      tools: [{ type: 'function', function: { name: 'get_weather', description: DESCRIPTION, parameters: SCHEMA, parse: JSON.parse, function: ({ city }) => run.weather(city) } }],
    });
    return runner.finalContent();
  }],
  ['openai chat.completions.runTools stream', 'openai', 'chat', async (run) => {
    const runner = openai(run).chat.completions.runTools({
      ...CHAT, messages: [{ role: 'user', content: QUESTION }], stream: true,
      tools: [{ type: 'function', function: { name: 'get_weather', description: DESCRIPTION, parameters: SCHEMA, parse: JSON.parse, function: ({ city }) => run.weather(city) } }],
    });
    return runner.finalContent();
  }],
  ['openai chat.completions.stream', 'openai', 'chat', (run) => chatLoop(run, async (messages) =>
    (await openai(run).chat.completions.stream({ ...CHAT, messages, tools: [chatTool] }).finalChatCompletion()).choices[0].message)],
  ['openai responses.create', 'openai', 'responses', (run) => responsesLoop(run, (input) =>
    openai(run).responses.create({ model: MODELS.openai, input, tools: [responsesTool] }))],
  ['openai responses.stream', 'openai', 'responses', (run) => responsesLoop(run, (input) =>
    openai(run).responses.stream({ model: MODELS.openai, input, tools: [responsesTool] }).finalResponse())],
  ['openai responses.create previous_response_id', 'openai', 'responses', async (run) => {
    const client = openai(run);
    let response = await client.responses.create({ model: MODELS.openai, input: QUESTION, tools: [responsesTool] });
    for (let turn = 0; turn < 5; turn++) {
      const results = responsesResults(run, response.output);
      if (!results.length) return response.output_text;
      // only the results go up: the server holds the rest under the previous response's id
      response = await client.responses.create({ model: MODELS.openai, previous_response_id: response.id, input: results, tools: [responsesTool] });
    }
    throw new Error('no answer after 5 turns');
  }],
  ['anthropic messages.create', '@anthropic-ai/sdk', 'anthropic', (run) => anthropicLoop(run, (messages) =>
    anthropic(run).messages.create({ model: MODELS.anthropic, max_tokens: 1024, messages, tools: [anthropicTool] }))],
  ['anthropic messages.stream', '@anthropic-ai/sdk', 'anthropic', (run) => anthropicLoop(run, (messages) =>
    anthropic(run).messages.stream({ model: MODELS.anthropic, max_tokens: 1024, messages, tools: [anthropicTool] }).finalMessage())],
  ...[false, true].map((stream) => [`anthropic beta.messages.toolRunner${stream ? ' stream' : ''}`, '@anthropic-ai/sdk', 'anthropic', async (run) => {
    // the runner's defaults: over a message thread, tools run after each reply
    const weather = betaTool({ name: 'get_weather', description: DESCRIPTION, inputSchema: SCHEMA, run: ({ city }) => run.weather(city) });
    const runner = anthropic(run).beta.messages.toolRunner({
      model: MODELS.anthropic, max_tokens: 1024, messages: [{ role: 'user', content: QUESTION }], tools: [weather],
      ...(stream ? { stream: true } : {}),
    });
    const last = await runner.runUntilDone();
    return last.content.filter((b) => b.type === 'text').map((b) => b.text).join('');
  }]),
  ...Object.entries(AI_MODELS).flatMap(([provider, [pkg, api, model, options]]) =>
    Object.entries(aiSdk(model, options)).map(([call, go]) => [`ai ${call} ${provider}`, `ai + ${pkg}`, api, go])),
  ['ollama chat', 'ollama', 'ollama', (run) => ollamaLoop(run, async (messages) =>
    (await new Ollama({ host: ROOT, fetch: run.fetch }).chat({ model: MODELS.ollama, messages, tools: [ollamaTool] })).message)],
  ['ollama chat stream', 'ollama', 'ollama', (run) => ollamaLoop(run, async (messages) => {
    const message = { role: 'assistant', content: '', tool_calls: [] };
    for await (const part of await new Ollama({ host: ROOT, fetch: run.fetch }).chat({ model: MODELS.ollama, messages, tools: [ollamaTool], stream: true })) {
      message.content += part.message.content ?? '';
      message.tool_calls.push(...(part.message.tool_calls ?? []));
    }
    return message;
  })],
];

// -- running one setup, judging it ----------------------------------------------------------------
function oneLine(error) {
  const text = error instanceof Error ? `${error.message}${error.cause ? ` (${oneLine(error.cause)})` : ''}` : String(error);
  return text.replace(/\s+/g, ' ').slice(0, 400);
}

async function attempt(name, pkg, api, go) {
  const run = new Run();
  const row = { name, client: pkg, version: version(pkg), api, ok: false, called: [], answered: [], runs: [],
    answer: null, requests: 0, thread: [], failed: null };
  let timer;
  try {
    row.answer = await Promise.race([go(run), new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${TIMEOUT_MS / 1000} s`)), TIMEOUT_MS);
    })]);
  } catch (error) {
    row.failed = oneLine(error);
  } finally {
    clearTimeout(timer);
  }
  await run.settled();
  Object.assign(row, idsOnTheWire(run.exchanges), {
    runs: run.runs,
    requests: run.exchanges.length,
    // an Anthropic message thread each request asked for ("create", then "continue"), if any
    thread: run.exchanges.map((e) => e.body?.thread?.type).filter((type) => type),
  });
  row.failed ??= judge(row);
  row.ok = row.failed === null;
  return row;
}

// What a finished run must show; null when it shows all of it.
function judge({ called, answered, runs, answer }) {
  if (called.length !== 1) return `the model's replies asked for ${called.length} calls (${called.join(', ')}), not 1`;
  if (runs.length !== 1 || runs[0] !== 'Paris') return `the client's code ran the tool for ${JSON.stringify(runs)}, not once for Paris`;
  if (answered.length !== 1 || answered[0] !== called[0]) return `the results answered ${JSON.stringify(answered)}, not the call ${called[0]}`;
  if (answer !== ANSWER) return `the final answer was ${JSON.stringify(answer)}, not ${JSON.stringify(ANSWER)}`;
  return null;
}

if (!ROOT) {
  console.error('clients.mjs: set TOOLCALL_LAB_DOUBLE_URL to the API double\'s root, e.g. http://127.0.0.1:8765');
  process.exit(2);
}
const wanted = process.argv.slice(2);
for (const [name, pkg, api, go] of SETUPS) {
  if (wanted.length && !wanted.includes(name)) continue;
  console.log(JSON.stringify(await attempt(name, pkg, api, go)));
}
