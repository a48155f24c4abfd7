import { Nullable, Open, Type } from '../../platform/http/schemas.ts';

/** What the rendering routes share: their OpenAPI tag, the caller's organization, list bodies. */
export const tags = ['Rendering'];
export const org = (req: { principal: { organizationId: string } }) => req.principal.organizationId;
export const List = <T extends Parameters<typeof Type.Array>[0]>(name: string, item: T) =>
  Open({ [name]: Type.Array(item), nextCursor: Nullable(Type.String()) });
