import { describe, expect, it } from 'bun:test';
import { LineReader, parseLine, TOO_LONG } from './protocol';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('LineReader', () => {
  it('splits on \\r\\n and \\n, keeps a partial line across chunks and ignores nothing else', () => {
    const reader = new LineReader();
    expect(reader.push(bytes('{"a":1}\r\n{"b":'))).toEqual(['{"a":1}']);
    expect(reader.push(bytes('2}'))).toEqual([]);
    expect(reader.push(bytes('\n{"c":3}\r'))).toEqual(['{"b":2}']);
    expect(reader.push(bytes('\n'))).toEqual(['{"c":3}']);
    expect(reader.push(bytes('\r\n\n'))).toEqual(['', '']);
  });

  it('joins a multi-byte character split between chunks', () => {
    const reader = new LineReader();
    const all = bytes('"ä€"\n');
    expect(reader.push(all.subarray(0, 2))).toEqual([]);
    expect(reader.push(all.subarray(2))).toEqual(['"ä€"']);
  });

  it('reports an over-long line once, drops its bytes up to the line end and reads on', () => {
    const reader = new LineReader(10);
    expect(reader.push(bytes('0123456789'))).toEqual([]);
    expect(reader.push(bytes('ab'))).toEqual([TOO_LONG]);
    expect(reader.push(bytes('still the same line'))).toEqual([]);
    expect(reader.push(bytes('end\r\n{"ok":1}\n'))).toEqual(['{"ok":1}']);
    expect(reader.push(bytes('01234567890123\nnext\n'))).toEqual([TOO_LONG, 'next']);
  });
});

describe('parseLine', () => {
  it('reads a call, a notification and the request shape CONVENTIONS shows without jsonrpc', () => {
    expect(parseLine('{"jsonrpc":"2.0","method":"ping","id":7}')).toEqual({
      kind: 'call',
      method: 'ping',
      params: undefined,
      id: 7,
      notification: false,
    });
    expect(parseLine('{"method":"auth","params":["x"]}')).toEqual({
      kind: 'call',
      method: 'auth',
      params: ['x'],
      id: null,
      notification: true,
    });
  });

  it('answers malformed input with the JSON-RPC error of its kind', () => {
    const reply = (line: string) => {
      const parsed = parseLine(line);
      return parsed.kind === 'error' ? JSON.parse(parsed.reply) : parsed;
    };
    expect(reply('{nope')).toEqual({ jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' }, id: null });
    expect(reply('[1,2]').error.code).toBe(-32600);
    expect(reply('42').error.code).toBe(-32600);
    expect(reply('{"id":3}')).toEqual({
      jsonrpc: '2.0',
      error: { code: -32600, message: 'Invalid Request', data: 'method must be a non-empty string' },
      id: 3,
    });
    expect(reply('{"method":"ping","id":{"x":1}}').id).toBeNull();
  });
});
