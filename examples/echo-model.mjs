// A stand-in OpenAI-compatible model for trying the issuing front without an API key: it answers
// every chat completion and every Responses API request with the question echoed back, whole
// (stream false) or word by word as server-sent events (stream true). Point a council seat at a
// real endpoint instead in production.
//   node examples/echo-model.mjs 8091
import { createServer } from 'node:http';

const port = Number(process.argv[2] ?? 8091);
const server = createServer((req, res) => {
  const responses = req.url?.endsWith('/responses');
  if (req.method !== 'POST' || !(responses || req.url?.endsWith('/chat/completions'))) return res.writeHead(404).end();
  let raw = '';
  req.setEncoding('utf8');
  req.on('data', (c) => (raw += raw.length < 1_000_000 ? c : ''));
  req.on('end', () => {
    let body;
    try {
      body = JSON.parse(raw);
    } catch {
      return res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":{"message":"not JSON"}}');
    }
    const last = Array.isArray(body.messages) ? body.messages.at(-1) : Array.isArray(body.input) ? body.input.at(-1) : undefined;
    const asked = typeof body.input === 'string' ? body.input : typeof last?.content === 'string' ? last.content : '(no text)';
    const answer = `You asked: ${asked}`;
    if (responses) return respond(res, body, answer);
    const base = { id: `chatcmpl-echo-${Date.now()}`, created: Math.floor(Date.now() / 1000), model: body.model ?? 'echo-1' };
    if (body.stream) {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
      for (const [i, word] of answer.split(/(?= )/).entries())
        res.write(
          `data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta: i === 0 ? { role: 'assistant', content: word } : { content: word }, finish_reason: null }] })}\n\n`,
        );
      res.write(
        `data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n`,
      );
      return res.end('data: [DONE]\n\n');
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        ...base,
        object: 'chat.completion',
        choices: [{ index: 0, message: { role: 'assistant', content: answer }, finish_reason: 'stop' }],
      }),
    );
  });
});
/** The Responses API's shapes: one message item, whole or as its typed events. */
function respond(res, body, answer) {
  const response = (status, output) => ({
    id: `resp_echo_${Date.now()}`,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    status,
    model: body.model ?? 'echo-1',
    output,
  });
  const item = (text, status) => ({
    id: 'msg_echo',
    type: 'message',
    status,
    role: 'assistant',
    content: text === null ? [] : [{ type: 'output_text', text, annotations: [] }],
  });
  const done = item(answer, 'completed');
  if (!body.stream) return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(response('completed', [done])));
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
  const at = { item_id: 'msg_echo', output_index: 0, content_index: 0 };
  const events = [
    { type: 'response.created', response: response('in_progress', []) },
    { type: 'response.output_item.added', output_index: 0, item: item(null, 'in_progress') },
    { type: 'response.content_part.added', ...at, part: { type: 'output_text', text: '', annotations: [] } },
    ...answer.split(/(?= )/).map((delta) => ({ type: 'response.output_text.delta', ...at, delta })),
    { type: 'response.output_text.done', ...at, text: answer },
    { type: 'response.content_part.done', ...at, part: done.content[0] },
    { type: 'response.output_item.done', output_index: 0, item: done },
    { type: 'response.completed', response: response('completed', [done]) },
  ];
  for (const [n, e] of events.entries()) res.write(`event: ${e.type}\ndata: ${JSON.stringify({ ...e, sequence_number: n })}\n\n`);
  res.end();
}

// Port 0 takes a free port; the line says which.
server.listen(port, '127.0.0.1', () =>
  console.log(JSON.stringify({ event: 'listening', url: `http://127.0.0.1:${server.address().port}/v1` })),
);
