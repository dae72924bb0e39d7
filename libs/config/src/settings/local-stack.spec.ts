import { loadLocalStackVariables } from '../app-config';

describe("npm start's own variables (LOCAL_*)", () => {
  it('defaults to the embedded PostgreSQL on 5433 and nats-server on 4223, looking for NATS on 4222', () => {
    expect(loadLocalStackVariables({})).toEqual({
      postgresPort: 5433,
      natsPort: 4223,
      natsProbeUrl: 'nats://127.0.0.1:4222',
    });
  });

  it('treats an empty variable as unset', () => {
    expect(
      loadLocalStackVariables({ LOCAL_POSTGRES_PORT: ' ', LOCAL_NATS_PROBE_URL: '' }),
    ).toMatchObject({ postgresPort: 5433, natsProbeUrl: 'nats://127.0.0.1:4222' });
  });

  it('reads the ports and the data folder, and refuses a port that is not one', () => {
    expect(
      loadLocalStackVariables({
        LOCAL_POSTGRES_PORT: '15433',
        LOCAL_NATS_PORT: '14223',
        LOCAL_DATA_DIR: 'tmp/data',
      }),
    ).toMatchObject({ postgresPort: 15433, natsPort: 14223, dataDir: 'tmp/data' });
    for (const bad of ['0', '65536', 'x', '80.5']) {
      expect(() => loadLocalStackVariables({ LOCAL_NATS_PORT: bad })).toThrow(
        /LOCAL_NATS_PORT: must be a port number between 1 and 65535/,
      );
    }
  });
});
