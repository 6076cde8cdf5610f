// An independent check of zcast's MCAP files with the MCAP reference reader (@mcap/core, npm) and
// Foxglove's ROS 2 message parser and CDR reader (@foxglove/rosmsg, @foxglove/rosmsg2-serialization):
//  - every record parses (stream reader, CRCs validated);
//  - files with a summary: the indexed reader (chunk indexes, message indexes) yields exactly the
//    messages of the stream, statistics count them, chunk indexes and message indexes point at
//    the right records, every message index entry at a message of its channel and time;
//  - every cdr message decodes against the ros2msg text stored in its schema (and the test
//    publisher's values come out);
//  - files cut by kill -9 (name has "as-is" or "to-last-chunk"): every complete record parses
//    and the messages equal those of the reindexed copy.
// Usage: node mcap_check.cjs NODE_MODULES_DIR FILE...
'use strict';
const fs = require('fs');
const path = require('path');
const mods = process.argv[2];
const need = (m) => require(require.resolve(m, { paths: [mods] }));
const { McapStreamReader, McapIndexedReader } = need('@mcap/core');
const { loadDecompressHandlers } = need('@mcap/support');
const { parse } = need('@foxglove/rosmsg');
const { MessageReader } = need('@foxglove/rosmsg2-serialization');

function fail(file, what) {
  throw new Error(`${file}: ${what}`);
}

function key(m) {
  return `${m.channelId}:${m.logTime}:${m.sequence}:${Buffer.from(m.data).toString('base64')}`;
}

function streamRead(file, bytes, handlers, complete) {
  const r = new McapStreamReader({ includeChunks: true, decompressHandlers: handlers, validateCrcs: true });
  r.append(bytes);
  const out = { schemas: new Map(), channels: new Map(), messages: [], chunks: 0, indexes: 0 };
  let lastChunk = null;
  for (let rec; (rec = r.nextRecord());) {
    if (rec.type === 'Schema') out.schemas.set(rec.id, rec);
    else if (rec.type === 'Channel') out.channels.set(rec.id, rec);
    else if (rec.type === 'Message') out.messages.push(rec);
    else if (rec.type === 'Chunk') {
      out.chunks++;
      const h = rec.compression ? handlers[rec.compression] : null;
      lastChunk = h ? h(rec.records, rec.uncompressedSize) : rec.records;
    } else if (rec.type === 'MessageIndex') {
      out.indexes++;
      if (!lastChunk) fail(file, 'message index before any chunk');
      const dv = new DataView(lastChunk.buffer, lastChunk.byteOffset, lastChunk.byteLength);
      for (const [t, off] of rec.records) {
        const o = Number(off);
        if (dv.getUint8(o) !== 5 || dv.getUint16(o + 9, true) !== rec.channelId ||
            dv.getBigUint64(o + 15, true) !== t)
          fail(file, `message index entry (${t}, ${off}) is no message of channel ${rec.channelId}`);
      }
    }
  }
  if (complete && !r.done()) fail(file, 'stream reader did not reach the end of the file');
  return out;
}

async function indexedRead(file, bytes, handlers, stream) {
  const readable = {
    size: async () => BigInt(bytes.length),
    read: async (off, n) => bytes.subarray(Number(off), Number(off + n)),
  };
  const r = await McapIndexedReader.Initialize({ readable, decompressHandlers: handlers });
  if (r.chunkIndexes.length !== stream.chunks)
    fail(file, `${r.chunkIndexes.length} chunk indexes for ${stream.chunks} chunks`);
  for (const ci of r.chunkIndexes) {
    const o = Number(ci.chunkStartOffset);
    if (bytes[o] !== 6 || Buffer.from(bytes.buffer, bytes.byteOffset).readBigUInt64LE(o + 1) + 9n !== ci.chunkLength)
      fail(file, `chunk index at ${o} does not point at its chunk`);
    for (const [ch, mo] of ci.messageIndexOffsets) {
      const p = Number(mo);
      if (bytes[p] !== 7 || bytes[p + 9] + 256 * bytes[p + 10] !== ch)
        fail(file, `chunk index points at no message index of channel ${ch}`);
    }
  }
  const got = [];
  for await (const m of r.readMessages()) got.push(m);
  const a = stream.messages.map(key).sort(), b = got.map(key).sort();
  if (a.length !== b.length || a.some((x, i) => x !== b[i]))
    fail(file, `indexed reader gives ${b.length} messages, the stream ${a.length}, or other bytes`);
  const counts = new Map();
  for (const m of stream.messages) counts.set(m.channelId, (counts.get(m.channelId) || 0) + 1);
  const st = r.statistics;
  if (!st || st.messageCount !== BigInt(stream.messages.length) || st.chunkCount !== stream.chunks)
    fail(file, 'statistics disagree with the contents');
  for (const [ch, n] of st.channelMessageCounts)
    if (BigInt(counts.get(ch) || 0) !== n) fail(file, `statistics count channel ${ch} wrong`);
  for (const [id, ch] of r.channelsById)
    if (!stream.channels.has(id) || stream.channels.get(id).topic !== ch.topic)
      fail(file, `summary channel ${id} differs`);
}

function checkValue(file, type, v) {
  if (type === 'sensor_msgs/msg/Image' &&
      (v.width !== 64 || v.height !== 48 || v.encoding !== 'rgb8' || v.step !== 192 ||
       !/^cam[0-4]$/.test(v.header.frame_id) || v.header.stamp.nanosec !== v.header.stamp.sec * 1000))
    fail(file, `Image decoded to unexpected values ${JSON.stringify({ ...v, data: v.data.length })}`);
  if (type === 'zcast_test/msg/Fixed' && // a user's type: its text came from a type library
      (v.a !== 7 || v.b !== 2.5 || v.c !== 300 || v.v?.x !== 1.5 || v.v?.y !== -1 || v.v?.z !== 0))
    fail(file, `Fixed decoded to unexpected values ${JSON.stringify(v)}`);
  if (type === 'std_msgs/msg/String' && !/^message \d+ of the text topic$/.test(v.data))
    fail(file, `String decoded to '${v.data}'`);
}

function decodeAll(file, stream) {
  const readers = new Map();
  let decoded = 0;
  for (const m of stream.messages) {
    const ch = stream.channels.get(m.channelId);
    if (ch.messageEncoding === 'zcast.raw') {
      if (ch.schemaId !== 0) fail(file, `raw channel ${ch.topic} has a schema`);
      continue;
    }
    if (ch.messageEncoding !== 'cdr') fail(file, `channel ${ch.topic}: encoding ${ch.messageEncoding}`);
    const s = stream.schemas.get(ch.schemaId);
    if (!s || s.encoding !== 'ros2msg') fail(file, `channel ${ch.topic}: no ros2msg schema`);
    if (!ch.metadata.get('topic_type_hash')?.startsWith('RIHS01_') || !ch.metadata.get('offered_qos_profiles'))
      fail(file, `channel ${ch.topic}: no RIHS01 hash or QoS in its metadata`);
    if (!readers.has(s.id))
      readers.set(s.id, new MessageReader(parse(new TextDecoder().decode(s.data), { ros2: true })));
    checkValue(file, s.name, readers.get(s.id).readMessage(m.data));
    decoded++;
  }
  return decoded;
}

async function main() {
  const handlers = await loadDecompressHandlers();
  const files = process.argv.slice(3);
  let messages = 0, decoded = 0;
  const cut = new Map();
  for (const file of files) {
    const bytes = new Uint8Array(fs.readFileSync(file));
    const isCut = /as-is|to-last-chunk/.test(path.basename(file));
    const s = streamRead(file, bytes, handlers, !isCut);
    if (!s.messages.length) fail(file, 'no messages');
    if (!isCut) await indexedRead(file, bytes, handlers, s);
    decoded += decodeAll(file, s);
    messages += s.messages.length;
    if (isCut || /reindexed/.test(file)) cut.set(path.basename(file), s.messages.map(key).join('\n'));
  }
  const re = cut.get('killed-reindexed.mcap');
  for (const name of ['killed-as-is.mcap', 'killed-to-last-chunk.mcap'])
    if (cut.has(name) && re !== undefined && cut.get(name) !== re)
      fail(name, 'messages differ from the reindexed copy');
  console.log(`mcap_check: ${files.length} files, ${messages} messages, ${decoded} decoded from their schema text: ok`);
}

main().catch((e) => { console.error(`mcap_check: ${e.message}`); process.exit(1); });
