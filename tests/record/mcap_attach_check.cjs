// The attachments of a file written by test_bag_attach (and reindexed), through the MCAP reference
// reader (@mcap/core): the stream reader parses every record with CRCs validated; the indexed
// reader finds one Attachment Index per Attachment record, Statistics counts them, and
// readAttachments (CRCs validated) gives the same names, media types, times and bytes, the first
// being test_bag_attach's 5000-byte pattern.
// Usage: node mcap_attach_check.cjs NODE_MODULES_DIR FILE
'use strict';
const fs = require('fs');
const mods = process.argv[2];
const file = process.argv[3];
const need = (m) => require(require.resolve(m, { paths: [mods] }));
const { McapStreamReader, McapIndexedReader } = need('@mcap/core');
const { loadDecompressHandlers } = need('@mcap/support');

function fail(what) {
  throw new Error(`${file}: ${what}`);
}
const same = (a, b) => a.name === b.name && a.mediaType === b.mediaType && a.logTime === b.logTime &&
  a.createTime === b.createTime && Buffer.from(a.data).equals(Buffer.from(b.data));

async function main() {
  const handlers = await loadDecompressHandlers();
  const bytes = new Uint8Array(fs.readFileSync(file));
  const s = new McapStreamReader({ decompressHandlers: handlers, validateCrcs: true });
  s.append(bytes);
  const stream = [];
  for (let rec; (rec = s.nextRecord());) if (rec.type === 'Attachment') stream.push(rec);
  if (!s.done()) fail('stream reader did not reach the end of the file');
  const readable = {
    size: async () => BigInt(bytes.length),
    read: async (off, n) => bytes.subarray(Number(off), Number(off + n)),
  };
  const r = await McapIndexedReader.Initialize({ readable, decompressHandlers: handlers });
  if (r.attachmentIndexes.length !== stream.length)
    fail(`${r.attachmentIndexes.length} attachment indexes for ${stream.length} attachments`);
  if (!r.statistics || r.statistics.attachmentCount !== stream.length)
    fail('statistics count other attachments');
  const got = [];
  for await (const a of r.readAttachments({ validateCrcs: true })) got.push(a);
  if (got.length !== stream.length || got.some((a, i) => !same(a, stream[i])))
    fail('readAttachments gives other attachments than the stream');
  const want = Buffer.alloc(5000);
  for (let i = 0; i < 5000; i++) want[i] = (i * 131) % 251;
  if (!stream.length || stream[0].name !== 'calibration.yaml' || !Buffer.from(stream[0].data).equals(want))
    fail('the first attachment is not the one test_bag_attach wrote');
  console.log(`mcap_attach_check: ${stream.length} attachments, indexed and counted: ok`);
}

main().catch((e) => { console.error(`mcap_attach_check: ${e.message}`); process.exit(1); });
