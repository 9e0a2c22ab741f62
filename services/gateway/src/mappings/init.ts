// The plain-object form of a protobuf message that a Connect client call takes.
import type { DescMessage, MessageInitShape } from "@bufbuild/protobuf";

export type Init<Schema extends DescMessage> = Exclude<MessageInitShape<Schema>, { $typeName: string }>;
