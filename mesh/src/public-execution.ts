import { execute, type GraphQLSchema } from 'graphql';
import type { GatewayPlugin } from '@graphql-hive/gateway-runtime';
import { addResolversToSchema } from '@graphql-tools/schema';
import { rootFields } from './auth/authorize';
import type { Resolvers } from './resolvers';

/**
 * The public schema (mesh/schema/*.graphql) with the route resolvers: what every operation but introspection executes
 * on (docs/decisions/0006, amendment of 2026-12-01).
 */
export function publicExecutableSchema(publicSchema: GraphQLSchema, routes: Resolvers): GraphQLSchema {
  return addResolversToSchema({ schema: publicSchema, resolvers: routes.resolvers });
}

const isIntrospectionField = (name: string) => name === '__schema' || name === '__type';

/**
 * Executes operations with graphql-js on the public schema instead of on Hive Gateway's unified graph. The routes call
 * the services themselves (mesh/src/route-calls.ts), so nothing of an operation is delegated, and the unified graph
 * only added stitching's per-field work to each answer: every public type is a merged type there, so each object of a
 * result was walked against its selection for fields to fetch from elsewhere (there never are any) and each field was
 * read through the merged-field resolver. Hive Gateway still parses and validates every request against the schema it
 * serves (whose public part is this same SDL, checked by mesh/test/public-execution.test.ts), runs the plugins, and
 * answers introspection, so what introspection shows is what validation checks against.
 */
export function usePublicExecution(schema: GraphQLSchema): GatewayPlugin {
  return {
    onExecute({ args, setExecuteFn }) {
      const root = rootFields(args.document, args.operationName);
      if (!root || root.fields.some((field) => isIntrospectionField(field.name.value))) return;
      setExecuteFn((executionArgs) => execute({ ...executionArgs, schema }));
    },
  };
}
