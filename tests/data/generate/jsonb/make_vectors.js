// Writes tests/data/jsonb/vectors.json: JSONB blobs made by a real SQLite
// >= 3.45 (better-sqlite3 12, SQLite 3.53) with the text SQLite's own json()
// renders for each, and the decoded args/errors/metadata of every job in the
// River v7 fixture. core/jsonb.cpp is tested against them; the system
// SQLite (3.40 on Debian 12) cannot read JSONB at all.
//
// Usage: npm install better-sqlite3@12 && node make_vectors.js REPO_ROOT
const Database = require('better-sqlite3');
const fs = require('fs');
const path = require('path');
const root = process.argv[2];
const mem = new Database(':memory:');
const inputs = [
  'null', 'true', 'false', '0', '-17', '9007199254740993', '1.5', '-2.5e-3', '1E10',
  '""', '"plain"', '"quote \\" and backslash \\\\ and \\n newline"', '"\\u00e9\\ud83d\\ude00"',
  '"caf\u00e9 \u2603"', '[]', '{}', '[1,[2,[3,[4]]]]',
  '{"a":1,"b":[true,false,null],"c":{"d":"e"}}',
  // JSON5 input: SQLite keeps INT5 / FLOAT5 / TEXT5 elements in the blob.
  '{a:0x1F}', '{b:.5}', '{c:+1}', '{d:5.}', '{e:Infinity}', '{f:-Infinity}', '{g:NaN}',
  "{h:'single'}", "{i:'x\\x41y'}", "{j:'tab\\vvt'}", "{k:'line\\\ncont'}", '[0xABCDEF, -0x10]',
  '{"big":' + '1'.repeat(30) + '}',
];
const vectors = [];
for (const text of inputs) {
  const row = mem.prepare('SELECT hex(jsonb(?)) AS blob, json(jsonb(?)) AS json').get(text, text);
  vectors.push({input: text, jsonb_hex: row.blob, json: row.json});
}
// Raw text with characters that need escaping (TEXTRAW comes from json_set
// with a SQL string value).
for (const v of ['ctl\u0001char', 'quote"back\\slash', 'nl\nx']) {
  const row = mem.prepare("SELECT hex(jsonb_object('k', ?)) AS blob, json(jsonb_object('k', ?)) AS json").get(v, v);
  vectors.push({input: 'jsonb_object(k, ' + JSON.stringify(v) + ')', jsonb_hex: row.blob, json: row.json});
}
const river = new Database(path.join(root, 'tests/data/formats/river-v7.sqlite3'), {readonly: true});
const jobs = river.prepare(
  'SELECT id, hex(args) AS args_hex, json(args) AS args, hex(errors) AS errors_hex, json(errors) AS errors, ' +
  'hex(metadata) AS metadata_hex, json(metadata) AS metadata FROM river_job ORDER BY id').all();
fs.writeFileSync(path.join(root, 'tests/data/jsonb/vectors.json'),
  JSON.stringify({sqlite_version: mem.prepare('SELECT sqlite_version() v').get().v,
                  vectors, river_jobs: jobs}, null, 1) + '\n');
console.log(`${vectors.length} vectors, ${jobs.length} River jobs`);
