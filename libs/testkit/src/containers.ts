// Testcontainers fallback. `testcontainers` is imported only when needed: without a Docker
// engine the probe rejects within milliseconds and nothing else is loaded.

let engine: Promise<boolean> | undefined;

/** True when a container engine answers (memoised per process). */
export function containerEngineAnswers(): Promise<boolean> {
  engine ??= (async () => {
    try {
      const { getContainerRuntimeClient } = await import("testcontainers");
      await getContainerRuntimeClient();
      return true;
    } catch {
      return false;
    }
  })();
  return engine;
}

export interface StartedContainer {
  host: string;
  port: number;
  stop(): Promise<void>;
}

export async function startPostgresContainer(): Promise<StartedContainer> {
  const { GenericContainer, Wait } = await import("testcontainers");
  const container = await new GenericContainer("postgres:15-alpine")
    .withEnvironment({ POSTGRES_HOST_AUTH_METHOD: "trust" })
    .withCommand(["postgres", "-c", "fsync=off", "-c", "max_connections=200"])
    .withExposedPorts(5432)
    .withWaitStrategy(Wait.forLogMessage(/database system is ready to accept connections/, 2))
    .start();
  return {
    host: container.getHost(),
    port: container.getMappedPort(5432),
    stop: async () => {
      await container.stop();
    },
  };
}

export async function startNatsContainer(): Promise<StartedContainer> {
  const { GenericContainer, Wait } = await import("testcontainers");
  const container = await new GenericContainer("nats:2.10-alpine")
    .withCommand(["-js"])
    .withExposedPorts(4222)
    .withWaitStrategy(Wait.forLogMessage(/Server is ready/))
    .start();
  return {
    host: container.getHost(),
    port: container.getMappedPort(4222),
    stop: async () => {
      await container.stop();
    },
  };
}
