/** A short note in place of a control the token's role may not use: which role it needs. */
import { useRole, type Role } from '../role.js';

export function NeedsRole({ need, what }: { need: Role; what: string }) {
  const role = useRole();
  return (
    <p class="muted small needs-role" data-testid="needs-role">
      {what} needs {need === 'admin' ? 'an admin' : 'a write or admin'} token; this token’s role is{' '}
      {role ?? 'lower'}.
    </p>
  );
}
