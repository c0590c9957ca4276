// A stand-in OpenAI-compatible model for trying the issuing front without an API key: it answers
// every chat completion with the question echoed back, whole (stream false) or word by word as
// server-sent events (stream true). Point a council seat at a real endpoint instead in production.
//   node examples/echo-model.mjs 8091
import { createServer } from 'node:http';

const port = Number(process.argv[2] ?? 8091);
const server = createServer((req, res) => {
  if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) return res.writeHead(404).end();
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
    const last = Array.isArray(body.messages) ? body.messages.at(-1) : undefined;
    const asked = typeof last?.content === 'string' ? last.content : '(no text)';
    const answer = `You asked: ${asked}`;
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
server.listen(port, '127.0.0.1', () => console.log(JSON.stringify({ event: 'listening', url: `http://127.0.0.1:${port}/v1` })));
