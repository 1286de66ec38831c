#!/usr/bin/env node
// Oracle dump of a local GGUF file by @huggingface/gguf (0.4.6), an independent parser: its output
// for configs/gguf/*.gguf is kept in tests/data/gguf-oracle/, which tests/unit/gguf_reader.test.cpp
// compares key by key with kvsize's reader. Regenerate in a scratch folder (never a dependency of
// kvsize): npm install @huggingface/gguf@0.4.6, then node tools/gguf-oracle.mjs FILE > FILE.json.
// Usage: node tools/gguf-oracle.mjs <file.gguf> [--time N]
//   prints JSON: { file, version, tensor_count, kv_count, little_endian,
//                  tensor_data_offset, tensor_info_byte_range,
//                  metadata: { key: {type, value} | {type:"ARRAY", elem_type, length, values|head} },
//                  tensors: [{name, shape, dtype, dtype_id, offset}] }
//   --time N : instead, parse N times and print {file, runs_ms, median_ms}
// Notes:
//  - local files need {allowLocalFile: true} (Node only).
//  - u64/i64 values, counts, shapes and offsets are emitted as decimal strings (BigInt).
//  - f32/f64 NaN/Infinity are emitted as strings "NaN"/"Infinity"/"-Infinity".
//  - arrays: values included only if length <= 64, otherwise "head" = first 4 values.
import { gguf, GGUFValueType, GGMLQuantizationType } from "@huggingface/gguf";
import path from "node:path";

const ARRAY_FULL_MAX = 64;
const ARRAY_HEAD = 4;

function tname(t) {
  return GGUFValueType[t] ?? `UNKNOWN_${t}`;
}

function jsonable(v) {
  if (typeof v === "bigint") return v.toString();
  if (typeof v === "number" && !Number.isFinite(v)) return String(v);
  if (Array.isArray(v)) return v.map(jsonable);
  return v;
}

function describeArray(value, subType) {
  const out = { type: "ARRAY", elem_type: tname(subType), length: value.length };
  if (subType === GGUFValueType.ARRAY) {
    // nested arrays: record inner lengths only for the first few
    out.note = "nested array";
  }
  if (value.length <= ARRAY_FULL_MAX) out.values = jsonable(value);
  else out.head = jsonable(value.slice(0, ARRAY_HEAD));
  return out;
}

async function parse(file) {
  return gguf(path.resolve(file), { allowLocalFile: true, typedMetadata: true });
}

async function dump(file) {
  const r = await parse(file);
  const tm = r.typedMetadata;
  const md = {};
  for (const [k, e] of Object.entries(tm)) {
    if (k === "version" || k === "tensor_count" || k === "kv_count") continue;
    if (e.type === GGUFValueType.ARRAY) md[k] = describeArray(e.value, e.subType);
    else md[k] = { type: tname(e.type), value: jsonable(e.value) };
  }
  const tensors = r.tensorInfos.map((t) => ({
    name: t.name,
    shape: t.shape.map((d) => d.toString()),
    dtype: GGMLQuantizationType[t.dtype] ?? `UNKNOWN_${t.dtype}`,
    dtype_id: t.dtype,
    offset: t.offset.toString(),
  }));
  return {
    file: path.basename(file),
    version: tm.version.value,
    tensor_count: tm.tensor_count.value.toString(),
    kv_count: tm.kv_count.value.toString(),
    little_endian: r.littleEndian,
    tensor_data_offset: r.tensorDataOffset.toString(),
    tensor_info_byte_range: r.tensorInfoByteRange,
    metadata: md,
    tensors,
  };
}

async function timeit(file, n) {
  const runs = [];
  for (let i = 0; i < n; i++) {
    const t0 = process.hrtime.bigint();
    await parse(file);
    runs.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  const s = [...runs].sort((a, b) => a - b);
  return { file: path.basename(file), runs_ms: runs.map((x) => +x.toFixed(2)), median_ms: +s[Math.floor(s.length / 2)].toFixed(2) };
}

const args = process.argv.slice(2);
if (args.length < 1) {
  console.error("usage: node dump.mjs <file.gguf> [--time N]");
  process.exit(2);
}
const ti = args.indexOf("--time");
try {
  if (ti >= 0) console.log(JSON.stringify(await timeit(args[0], Number(args[ti + 1] ?? 5))));
  else console.log(JSON.stringify(await dump(args[0]), null, 1));
} catch (e) {
  console.error(`error: ${e?.message ?? e}`);
  process.exit(1);
}
