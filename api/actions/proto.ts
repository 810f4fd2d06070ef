import protobuf from 'protobufjs';

/**
 * The messages of Gitea's runner protocol (actions-proto-def: ping.v1 and runner.v1), with the two well-known
 * types they use. Field numbers are the wire contract act_runner speaks; protobufjs reads the definitions at start.
 */
const definitions = `
syntax = "proto3";
package google.protobuf;
message Timestamp { int64 seconds = 1; int32 nanos = 2; }
message Struct { map<string, Value> fields = 1; }
message Value {
  oneof kind { NullValue null_value = 1; double number_value = 2; string string_value = 3; bool bool_value = 4; Struct struct_value = 5; ListValue list_value = 6; }
}
enum NullValue { NULL_VALUE = 0; }
message ListValue { repeated Value values = 1; }
`;

const ping = `
syntax = "proto3";
package ping.v1;
message PingRequest { string data = 1; }
message PingResponse { string data = 1; }
`;

const runner = `
syntax = "proto3";
package runner.v1;
enum RunnerStatus { RUNNER_STATUS_UNSPECIFIED = 0; RUNNER_STATUS_IDLE = 1; RUNNER_STATUS_ACTIVE = 2; RUNNER_STATUS_OFFLINE = 3; }
enum Result { RESULT_UNSPECIFIED = 0; RESULT_SUCCESS = 1; RESULT_FAILURE = 2; RESULT_CANCELLED = 3; RESULT_SKIPPED = 4; }
message RegisterRequest {
  string name = 1; string token = 2; repeated string agent_labels = 3; repeated string custom_labels = 4;
  string version = 5; repeated string labels = 6; bool ephemeral = 7;
}
message RegisterResponse { Runner runner = 1; }
message DeclareRequest { string version = 1; repeated string labels = 2; }
message DeclareResponse { Runner runner = 1; }
message FetchTaskRequest { int64 tasks_version = 1; }
message FetchTaskResponse { Task task = 1; int64 tasks_version = 2; }
message UpdateTaskRequest { TaskState state = 1; map<string, string> outputs = 2; }
message UpdateTaskResponse { TaskState state = 1; repeated string sent_outputs = 2; }
message UpdateLogRequest { int64 task_id = 1; int64 index = 2; repeated LogRow rows = 3; bool no_more = 4; }
message UpdateLogResponse { int64 ack_index = 1; }
message Runner {
  int64 id = 1; string uuid = 2; string token = 3; string name = 4; RunnerStatus status = 5;
  repeated string agent_labels = 6; repeated string custom_labels = 7; string version = 8; repeated string labels = 9; bool ephemeral = 10;
}
message Task {
  int64 id = 1; optional bytes workflow_payload = 2; optional google.protobuf.Struct context = 3; map<string, string> secrets = 4;
  string machine = 5; map<string, TaskNeed> needs = 6; map<string, string> vars = 7;
}
message TaskNeed { map<string, string> outputs = 1; Result result = 2; }
message TaskState {
  int64 id = 1; Result result = 2; google.protobuf.Timestamp started_at = 3; google.protobuf.Timestamp stopped_at = 4; repeated StepState steps = 5;
}
message StepState {
  int64 id = 1; Result result = 2; google.protobuf.Timestamp started_at = 3; google.protobuf.Timestamp stopped_at = 4; int64 log_index = 5; int64 log_length = 6;
}
message LogRow { google.protobuf.Timestamp time = 1; string content = 2; }
`;

const root = new protobuf.Root();
for (const source of [definitions, ping, runner]) protobuf.parse(source, root, { keepCase: true });
root.resolveAll();

export function messageType(name: string): protobuf.Type {
  return root.lookupType(name);
}

/**
 * A message as handlers see it: field names as in the .proto (snake case), int64 as numbers, enums by name,
 * Timestamps as Dates (or null), Structs as plain JSON objects, bytes as Buffers.
 */
export type Plain = Record<string, unknown>;

const isTimestamp = (type: protobuf.Type): boolean => type.fullName === '.google.protobuf.Timestamp';
const isStruct = (type: protobuf.Type): boolean => type.fullName === '.google.protobuf.Struct';

export class ProtoInputError extends Error {}

const camelToSnake = (name: string): string => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

// --- binary -------------------------------------------------------------------------------------------------------

function valueToJson(value: Plain | undefined): unknown {
  if (!value) return null;
  if (value.struct_value) return structToJson(value.struct_value as Plain);
  if (value.list_value) return ((value.list_value as Plain).values as Plain[] | undefined ?? []).map(valueToJson);
  if (value.string_value !== undefined) return value.string_value;
  if (value.number_value !== undefined) return value.number_value;
  if (value.bool_value !== undefined) return value.bool_value;
  return null;
}

function structToJson(struct: Plain): Plain {
  const out: Plain = {};
  for (const [key, value] of Object.entries((struct.fields as Record<string, Plain>) ?? {})) out[key] = valueToJson(value);
  return out;
}

function jsonToValue(value: unknown): Plain {
  if (value === null || value === undefined) return { null_value: 0 };
  if (typeof value === 'number') return { number_value: value };
  if (typeof value === 'string') return { string_value: value };
  if (typeof value === 'boolean') return { bool_value: value };
  if (Array.isArray(value)) return { list_value: { values: value.map(jsonToValue) } };
  return { struct_value: jsonToStruct(value as Plain) };
}

function jsonToStruct(json: Plain): Plain {
  return { fields: Object.fromEntries(Object.entries(json).map(([k, v]) => [k, jsonToValue(v)])) };
}

/** Walks a protobufjs object form of `type`, converting well-known types with `wkt`. */
function walk(type: protobuf.Type, object: Plain, wkt: (type: protobuf.Type, value: unknown) => unknown): Plain {
  const out: Plain = {};
  for (const field of type.fieldsArray) {
    const value = object[field.name];
    if (value === undefined) continue;
    const resolved = field.resolvedType;
    if (!(resolved instanceof protobuf.Type)) {
      out[field.name] = value;
      continue;
    }
    const convert = (item: unknown): unknown =>
      isTimestamp(resolved) || isStruct(resolved) ? wkt(resolved, item) : item === null ? null : walk(resolved, item as Plain, wkt);
    if (field.map) out[field.name] = Object.fromEntries(Object.entries(value as Plain).map(([k, v]) => [k, convert(v)]));
    else if (field.repeated) out[field.name] = (value as unknown[]).map(convert);
    else out[field.name] = convert(value);
  }
  return out;
}

export function decodeBinary(name: string, bytes: Uint8Array): Plain {
  const type = messageType(name);
  let message: protobuf.Message;
  try {
    message = type.decode(bytes);
  } catch (error) {
    throw new ProtoInputError(`cannot decode ${name}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const object = type.toObject(message, { enums: String, longs: Number, bytes: Buffer, defaults: true, arrays: true, objects: true }) as Plain;
  return walk(type, object, (wktType, value) => {
    if (value === null || value === undefined) return null;
    if (isStruct(wktType)) return structToJson(value as Plain);
    const { seconds, nanos } = value as { seconds: number; nanos: number };
    return new Date(Number(seconds) * 1000 + Math.floor(Number(nanos ?? 0) / 1e6));
  });
}

export function encodeBinary(name: string, plain: Plain): Uint8Array {
  const type = messageType(name);
  const object = walk(type, plain, (wktType, value) => {
    if (value === null || value === undefined) return undefined;
    if (isStruct(wktType)) return jsonToStruct(value as Plain);
    const ms = (value as Date).getTime();
    return { seconds: Math.floor(ms / 1000), nanos: (ms % 1000) * 1e6 };
  });
  return type.encode(type.fromObject(object)).finish();
}

// --- JSON (proto3's JSON mapping) ---------------------------------------------------------------------------------

const int64Types = new Set(['int64', 'uint64', 'sint64', 'fixed64', 'sfixed64']);

function scalarFromJson(field: protobuf.Field, value: unknown): unknown {
  if (value === null) return undefined;
  if (field.resolvedType instanceof protobuf.Enum) {
    const values = field.resolvedType.values;
    if (typeof value === 'number' && Object.values(values).includes(value)) return field.resolvedType.valuesById[value];
    if (typeof value === 'string' && Object.hasOwn(values, value)) return value;
    throw new ProtoInputError(`invalid value for enum field ${field.name}`);
  }
  if (int64Types.has(field.type) || ['int32', 'uint32', 'sint32', 'fixed32', 'sfixed32', 'double', 'float'].includes(field.type)) {
    const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
    if (typeof number !== 'number' || !Number.isFinite(number)) throw new ProtoInputError(`invalid value for number field ${field.name}`);
    return number;
  }
  if (field.type === 'bool') {
    if (typeof value !== 'boolean') throw new ProtoInputError(`invalid value for bool field ${field.name}`);
    return value;
  }
  if (field.type === 'bytes') {
    if (typeof value !== 'string') throw new ProtoInputError(`invalid value for bytes field ${field.name}`);
    return Buffer.from(value, 'base64');
  }
  if (typeof value !== 'string') throw new ProtoInputError(`invalid value for string field ${field.name}`);
  return value;
}

function fromJson(type: protobuf.Type, json: unknown, depth = 0): Plain {
  if (depth > 32) throw new ProtoInputError('message nested too deeply');
  if (!json || typeof json !== 'object' || Array.isArray(json)) throw new ProtoInputError(`${type.name} must be a JSON object`);
  const out: Plain = {};
  for (const [key, value] of Object.entries(json as Plain)) {
    const field = type.fields[key] ?? type.fields[camelToSnake(key)];
    if (!field) throw new ProtoInputError(`unknown field "${key}" in ${type.name}`);
    if (value === null) continue;
    const resolved = field.resolvedType;
    const convert = (item: unknown): unknown => {
      if (!(resolved instanceof protobuf.Type)) return scalarFromJson(field, item);
      if (isTimestamp(resolved)) {
        const when = typeof item === 'string' ? new Date(item) : null;
        if (!when || Number.isNaN(when.getTime())) throw new ProtoInputError(`invalid timestamp in field ${field.name}`);
        return when;
      }
      if (isStruct(resolved)) {
        if (!item || typeof item !== 'object' || Array.isArray(item)) throw new ProtoInputError(`field ${field.name} must be an object`);
        return item;
      }
      return fromJson(resolved, item, depth + 1);
    };
    if (field.map) {
      if (typeof value !== 'object' || Array.isArray(value)) throw new ProtoInputError(`field ${field.name} must be an object`);
      out[field.name] = Object.fromEntries(Object.entries(value as Plain).map(([k, v]) => [k, convert(v)]));
    } else if (field.repeated) {
      if (!Array.isArray(value)) throw new ProtoInputError(`field ${field.name} must be an array`);
      out[field.name] = value.map(convert);
    } else {
      out[field.name] = convert(value);
    }
  }
  // defaults, as the binary form gives them
  for (const field of type.fieldsArray) {
    if (out[field.name] !== undefined) continue;
    if (field.map) out[field.name] = {};
    else if (field.repeated) out[field.name] = [];
    else if (field.resolvedType instanceof protobuf.Type) out[field.name] = null;
    else if (field.resolvedType instanceof protobuf.Enum) out[field.name] = field.resolvedType.valuesById[0];
    else if (field.type === 'bool') out[field.name] = false;
    else if (field.type === 'string') out[field.name] = '';
    else if (field.type === 'bytes') out[field.name] = Buffer.alloc(0);
    else out[field.name] = 0;
  }
  return out;
}

export function decodeJson(name: string, text: string): Plain {
  let json: unknown;
  try {
    json = text.trim() === '' ? {} : JSON.parse(text);
  } catch {
    throw new ProtoInputError('the body is not JSON');
  }
  return fromJson(messageType(name), json);
}

function toJson(type: protobuf.Type, plain: Plain): Plain {
  const out: Plain = {};
  for (const field of type.fieldsArray) {
    const value = plain[field.name];
    if (value === undefined || value === null) continue;
    const resolved = field.resolvedType;
    const convert = (item: unknown): unknown => {
      if (resolved instanceof protobuf.Type) {
        if (isTimestamp(resolved)) return (item as Date).toISOString();
        if (isStruct(resolved)) return item;
        return toJson(resolved, item as Plain);
      }
      if (int64Types.has(field.type)) return String(item);
      if (field.type === 'bytes') return Buffer.from(item as Uint8Array).toString('base64');
      return item;
    };
    out[protobuf.util.camelCase(field.name)] = field.map
      ? Object.fromEntries(Object.entries(value as Plain).map(([k, v]) => [k, convert(v)]))
      : field.repeated ? (value as unknown[]).map(convert) : convert(value);
  }
  return out;
}

export function encodeJson(name: string, plain: Plain): string {
  return JSON.stringify(toJson(messageType(name), plain));
}
