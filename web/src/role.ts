/**
 * The token's role (`GET /v1/tokens/self`), read once when the token is accepted, so the page can
 * hide or disable what the role may not do and say which role it needs. Null while unknown (or
 * when the server could not say): then every control shows and the server's 403 still explains.
 */
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';

export type Role = 'read' | 'write' | 'admin';

const RANK: Record<Role, number> = { read: 0, write: 1, admin: 2 };

export const RoleContext = createContext<Role | null>(null);

/** The token's role, or null while unknown. */
export function useRole(): Role | null {
  return useContext(RoleContext);
}

/** Whether `role` may do what needs `need`; an unknown role may try (the server decides). */
export function allows(role: Role | null, need: Role): boolean {
  return role === null || RANK[role] >= RANK[need];
}

/** Whether the token's role may do what needs `need` (true while the role is unknown). */
export function useAllowed(need: Role): boolean {
  return allows(useRole(), need);
}

/** Whether `value` is a role the page knows. */
export function isRole(value: unknown): value is Role {
  return value === 'read' || value === 'write' || value === 'admin';
}
