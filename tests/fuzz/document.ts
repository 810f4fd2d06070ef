/** The operations the served OpenAPI document declares, as the fuzzer reads them. */

export type Schema = {
  type?: string;
  format?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  maxLength?: number;
};

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'body' | 'header' | 'formData';
  required?: boolean;
  type?: string;
  format?: string;
  schema?: Schema;
  items?: Schema;
}

export interface Operation {
  method: string;
  path: string;
  operationId: string;
  pathParams: Parameter[];
  queryParams: Parameter[];
  body?: Schema;
}

interface Document {
  paths: Record<string, Record<string, { operationId: string; parameters?: Parameter[] }>>;
}

export function operationsOf(document: Document): Operation[] {
  const operations: Operation[] = [];
  for (const [path, methods] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      const parameters = operation.parameters ?? [];
      operations.push({
        method: method.toUpperCase(),
        path,
        operationId: operation.operationId,
        pathParams: parameters.filter((p) => p.in === 'path'),
        queryParams: parameters.filter((p) => p.in === 'query'),
        body: parameters.find((p) => p.in === 'body')?.schema,
      });
    }
  }
  return operations;
}
