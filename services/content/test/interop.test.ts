// The content service as a non-Connect consumer sees it: plain gRPC (@grpc/grpc-js, the
// grpc.health.v1 protocol Kubernetes probes use) and gRPC-Web, on the same port as Connect.
import path from "node:path";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { createClient } from "@connectrpc/connect";
import { createGrpcWebTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ContentService } from "@support/proto";
import { SERVICE_IDENTITY_HEADER, defaultServiceCaller } from "@support/rpc";
import { startContent, type ContentTestContext } from "./context.ts";
import { seedCompany, seedGame } from "./fixtures.ts";

let ctx: ContentTestContext;
let address: string;

beforeAll(async () => {
  ctx = await startContent();
  address = new URL(ctx.baseUrl).host;
});

afterAll(async () => {
  await ctx?.stop();
});

type Callback<T> = (error: grpc.ServiceError | null, value: T) => void;
type UnaryMethod<Req, Res> = (request: Req, metadata: grpc.Metadata, callback: Callback<Res>) => void;

/**
 * Every RPC but health checks needs a service identity: this process's development caller, which
 * the service started in this process trusts (libs/rpc identity.ts).
 */
const identityToken = () => defaultServiceCaller()!.tokenFor("content");

function loadGrpcClients() {
  const definition = protoLoader.loadSync(["content/v1/content.proto", "grpc/health/v1/health.proto"], {
    includeDirs: [path.resolve(import.meta.dirname, "../../../proto")],
    enums: String,
    defaults: true,
  });
  const loaded = grpc.loadPackageDefinition(definition) as unknown as {
    content: { v1: { ContentService: grpc.ServiceClientConstructor } };
    grpc: { health: { v1: { Health: grpc.ServiceClientConstructor } } };
  };
  const credentials = grpc.credentials.createInsecure();
  return {
    content: new loaded.content.v1.ContentService(address, credentials),
    health: new loaded.grpc.health.v1.Health(address, credentials),
  };
}

function call<Req, Res>(client: grpc.Client, method: string, request: Req): Promise<Res> {
  const fn = (client as unknown as Record<string, UnaryMethod<Req, Res>>)[method]!.bind(client);
  const metadata = new grpc.Metadata();
  metadata.set(SERVICE_IDENTITY_HEADER, identityToken());
  return new Promise((resolve, reject) => fn(request, metadata, (error, value) => (error ? reject(error) : resolve(value))));
}

describe("interoperability", () => {
  it("answers a plain @grpc/grpc-js client: health and a content RPC with a domain error", async () => {
    const company = await seedCompany(ctx.db);
    const { game } = await seedGame(ctx.db, company.id, { slug: "grpc-game" });
    const clients = loadGrpcClients();
    try {
      const health = await call<object, { status: string }>(clients.health, "check", { service: "" });
      expect(health.status).toBe("SERVING");
      const named = await call<object, { status: string }>(clients.health, "check", { service: "content.v1.ContentService" });
      expect(named.status).toBe("SERVING");

      const listed = await call<object, { games: { id: string; slug: string }[] }>(clients.content, "listGames", { companyId: company.id });
      expect(listed.games.map((g) => [g.id, g.slug])).toEqual([[game.id, "grpc-game"]]);

      const missing = await call(clients.content, "getGame", { companyId: company.id, gameId: "00000000-0000-4000-8000-000000000000" }).catch(
        (error: grpc.ServiceError) => error,
      );
      expect((missing as grpc.ServiceError).code).toBe(grpc.status.NOT_FOUND);
    } finally {
      clients.content.close();
      clients.health.close();
    }
  });

  it("answers a gRPC-Web client over HTTP/1.1", async () => {
    const company = await seedCompany(ctx.db);
    await seedGame(ctx.db, company.id, { slug: "web-game" });
    const client = createClient(
      ContentService,
      createGrpcWebTransport({
        baseUrl: ctx.baseUrl,
        httpVersion: "1.1",
        interceptors: [(next) => (request) => (request.header.set(SERVICE_IDENTITY_HEADER, identityToken()), next(request))],
      }),
    );
    const listed = await client.listGames({ companyId: company.id });
    expect(listed.games.map((g) => g.slug)).toEqual(["web-game"]);
  });
});
