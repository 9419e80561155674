import { expect } from 'chai';
import { composeSupergraph } from '../src/compose';
import { SUBGRAPHS } from '../src/subgraphs';

describe('gateway.composeSupergraph', function () {
  this.timeout(30_000);
  let hidden = '';

  before(async () => {
    ({ hidden } = await composeSupergraph(
      SUBGRAPHS.map(({ name, proto }) => ({ name, proto, endpoint: '127.0.0.1:1' })),
    ));
  });

  it('decodes proto3 defaults on every transport root (false, 0, "" and enum 0 are not null)', () => {
    const roots = hidden.match(/rootJson:/g)?.length ?? 0;
    expect(roots).to.be.greaterThan(0);
    expect(hidden.match(/loadOptions: \{defaults: true\}/g)?.length).to.equal(roots);
  });

  it('gives every gRPC transport the round_robin channel options', () => {
    const transports = hidden.match(/kind: "grpc"/g)?.length ?? 0;
    expect(transports).to.equal(SUBGRAPHS.length);
    expect(hidden.match(/channelOptions: \[\["grpc.service_config"/g)?.length).to.equal(transports);
  });

  it('hides the raw gRPC root fields from the public schema', () => {
    const rawField = /^\s+svc_inbox_v1_InboxService_SendMessage\(.*$/m.exec(hidden)?.[0] ?? '';
    expect(rawField).to.contain('@inaccessible');
  });
});
