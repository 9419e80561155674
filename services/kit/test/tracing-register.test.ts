import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { expect } from 'chai';

/**
 * The instrumentations patch grpc-js, http, koa, kafkajs and mysql2 as they are first required: a module that
 * tracing/register loads before the SDK starts and that requires one of them leaves it unpatched (flows' calls to the
 * inbox then had no client span and started a trace of their own).
 */
describe('kit.tracing/register: loads none of the instrumented libraries before the SDK starts', () => {
  it('requires no grpc-js, koa, kafkajs, mysql2 nor generated client, tracing off', () => {
    const register = path.resolve(__dirname, '../src/tracing/register.js');
    const script = `require(${JSON.stringify(register)});
      const loaded = Object.keys(require.cache).filter((file) =>
        /[\\\\/](@grpc[\\\\/]grpc-js|koa|kafkajs|mysql2|proto[\\\\/]gen)[\\\\/]/.test(file));
      process.stdout.write(JSON.stringify(loaded));`;
    const loaded = JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' })) as string[];
    expect(loaded).to.deep.equal([]);
  });
});
