/**
 * The options of closed object schemas (no properties beyond those declared), which nearly every
 * schema of the archive is: `strict` for a part with no name, `titled` for a part the OpenAPI
 * document and validation errors name, `model` for a model the API publishes under its name.
 */

export const strict = { additionalProperties: false } as const;

/** A model the API names: published under `name` as its `$id` (what the OpenAPI document turns into a reference to the component) and its `title`. */
export const model = (name: string, description: string) =>
  ({ ...strict, $id: name, title: name, description }) as const;

/** A named part of a model: titled `name`, without an `$id` (it stays inline where it is used). */
export const titled = (name: string, description: string) => ({ ...strict, title: name, description }) as const;
