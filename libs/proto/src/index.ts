// Generated contracts of every service, re-exported from one place.
export * from "./gen/content/v1/content_pb.js";
export * from "./gen/rpc/v1/errors_pb.js";
export * as health from "./gen/grpc/health/v1/health_pb.js";
export * from "./gen/media/v1/media_pb.js";
export * from "./gen/players/v1/players_pb.js";
export * from "./gen/tickets/v1/tickets_pb.js";
export * from "./gen/tickets/v1/player_side_pb.js";
export * from "./gen/tickets/v1/admin_pb.js";
export * from "./gen/content/v1/admin_pb.js";
export * from "./gen/content/v1/agents_pb.js";
export * from "./gen/content/v1/canned_pb.js";
export * from "./gen/content/v1/settings_pb.js";
export * from "./gen/players/v1/admin_pb.js";
export * from "./gen/webhooks/v1/webhooks_pb.js";
export * from "./gen/email/v1/email_pb.js";
