/**
 * Tool-result payloads of every kind an agent sees, seeded and sized on
 * demand: source code, JSON, logs, prose, base64 (an image or an archive read
 * as text), CJK text, and mixes (code with a base64 tail, a log with a JSON
 * dump). Used by the token-estimate tests and the per-request bench, so both
 * see the kinds that tokenize very differently (~4 characters per token for
 * English, ~1.5 for base64, under 1 for CJK).
 */
import * as C from './content.js';
import { Rng } from './rng.js';

export type PayloadKind = 'code' | 'json' | 'log' | 'prose' | 'base64' | 'cjk' | 'code+base64' | 'log+json' | 'markdown+cjk';

export const PAYLOAD_KINDS: readonly PayloadKind[] = ['code', 'json', 'log', 'prose', 'base64', 'cjk', 'code+base64', 'log+json', 'markdown+cjk'];

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const CJK_WORDS = [
  '缓存',
  '请求',
  '模型',
  '上下文',
  '窗口',
  '令牌',
  '工具',
  '结果',
  '会话',
  '前缀',
  '写入',
  '读取',
  '成本',
  '延迟',
  '压缩',
  '摘要',
  'キャッシュ',
  'リクエスト',
  'モデル',
  'トークン',
  'ツール',
  '結果',
  'セッション',
  '書き込み',
  '読み取り',
  '캐시',
  '요청',
  '모델',
  '토큰',
  '도구',
  '결과',
  '세션',
];
const CJK_JOIN = ['的', '是', '在', '和', '了', 'を', 'に', 'は', 'が', '의', '를', '에서'];
const CJK_PUNCT = ['，', '。', '、', '：', '；', '！', '？'];

function base64(rng: Rng, n: number): string {
  let out = '';
  for (let i = 0; i < n; i++) {
    out += B64[rng.int(0, 63)];
    if (i % 76 === 75) out += '\n';
  }
  return out;
}

function cjk(rng: Rng, n: number): string {
  let out = '';
  while (out.length < n) {
    const words = rng.int(3, 12);
    for (let i = 0; i < words; i++) out += rng.pick(CJK_WORDS) + (rng.chance(0.5) ? rng.pick(CJK_JOIN) : '');
    out += rng.pick(CJK_PUNCT);
    if (rng.chance(0.1)) out += '\n';
  }
  return out.slice(0, n);
}

function json(rng: Rng, n: number): string {
  const rows: unknown[] = [];
  let size = 2;
  while (size < n) {
    const row = {
      id: `${C.ident(rng)}_${rng.int(1, 99999)}`,
      name: C.sentence(rng, 'databases').slice(0, rng.int(10, 40)),
      count: rng.int(0, 100000),
      ratio: Number(rng.float(0, 1).toFixed(4)),
      tags: rng.sample(['a', 'hot', 'cold', 'primary', 'replica', 'eu-west-1', 'us-east-2'], rng.int(0, 3)),
      active: rng.chance(0.5),
    };
    rows.push(row);
    size += JSON.stringify(row).length + 1;
  }
  return JSON.stringify({ items: rows }, null, rng.chance(0.5) ? 2 : undefined).slice(0, n);
}

function prose(rng: Rng, n: number): string {
  let out = '';
  while (out.length < n) out += C.sentence(rng, rng.pick(['ledger', 'caching', 'databases', 'vectors', 'policy'])) + (rng.chance(0.2) ? '\n\n' : ' ');
  return out.slice(0, n);
}

/** A payload of `kind` with about `chars` characters (exactly, for the single kinds). */
export function payload(kind: PayloadKind, chars: number, seed: number | string = 1): string {
  const rng = new Rng(`${kind}:${chars}:${seed}`);
  switch (kind) {
    case 'code':
      return C.sourceFile(rng, 'src/example.ts', chars).slice(0, chars);
    case 'json':
      return json(rng, chars);
    case 'log':
      return C.buildLog(rng, chars).slice(0, chars);
    case 'prose':
      return prose(rng, chars);
    case 'base64':
      return base64(rng, chars);
    case 'cjk':
      return cjk(rng, chars);
    case 'code+base64': {
      const head = Math.round(chars * rng.float(0.4, 0.8));
      return `${payload('code', head, seed)}\nconst ICON = "data:image/png;base64,${base64(rng, chars - head)}";\n`;
    }
    case 'log+json': {
      const head = Math.round(chars * rng.float(0.3, 0.7));
      return `${payload('log', head, seed)}\n--- response body ---\n${json(rng, chars - head)}`;
    }
    case 'markdown+cjk': {
      const head = Math.round(chars * rng.float(0.3, 0.7));
      return `${C.markdownPage(rng, 'caching', 'Notes', head)}\n\n## 摘要\n\n${cjk(rng, chars - head)}`;
    }
  }
}
