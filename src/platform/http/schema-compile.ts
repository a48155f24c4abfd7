import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifySchemaCompiler, FastifySchemaValidationError, FastifyServerOptions } from 'fastify';
import { validatorCompiler } from './validation.ts';

/**
 * When an app compiles its routes' schemas into validators and serializers:
 * - `at-start`: all of them before the first request, so a served node answers its first request
 *   of each route as fast as the rest, and a schema that does not compile stops the start;
 * - `on-first-use`: each by the first request that needs it. Test apps use it: a test file reaches a
 *   few dozen of the app's routes, and compiling every route's schemas is most of an app's start.
 * The validators and serializers are the same either way.
 */
export type SchemaCompile = 'at-start' | 'on-first-use';

type Validate = ((data: unknown) => boolean) & { errors?: FastifySchemaValidationError[] | null };

/** A validator compiled on its first call; Fastify reads a failed call's problems from `errors`. */
function validatorOnFirstUse(compile: () => Validate): Validate {
  let validate: Validate | undefined;
  const onFirstUse: Validate = (data) => {
    validate ??= compile();
    const valid = validate(data);
    onFirstUse.errors = validate.errors;
    return valid;
  };
  return onFirstUse;
}

/** The app's validator compiler for `mode`. */
export function validatorsFor(mode: SchemaCompile): FastifySchemaCompiler<any> {
  if (mode === 'at-start') return validatorCompiler;
  return (route) => validatorOnFirstUse(() => validatorCompiler(route) as Validate);
}

const fastifySerializers = SerializerSelector();

/**
 * Fastify's options that make serializers as Fastify's own compiler does, on first use. Each route
 * gets a compiler of its own: Fastify's drops a shared schema from the compiler's list when a
 * response schema carries the same `$id`, which would otherwise depend on the order of first uses.
 */
export function serializersFor(mode: SchemaCompile): Pick<FastifyServerOptions, 'schemaController'> {
  if (mode === 'at-start') return {};
  return {
    schemaController: {
      compilersFactory: {
        buildSerializer: (externalSchemas, options) => (route) => {
          let serialize: ((doc: unknown) => string) | undefined;
          return (doc: unknown) => {
            serialize ??= fastifySerializers(externalSchemas, options)(route);
            return serialize(doc);
          };
        },
      },
    },
  };
}
