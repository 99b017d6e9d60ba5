import { QuiverError } from '../../errors.js';
import { createToken, listTokens, revokeToken, ROLES, type Role } from '../../server/tokens.js';
import { str, type Command } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { table } from '../table.js';

/** `quiver token create|list|revoke`: the bearer tokens `quiver serve` accepts. */
export const tokenCommand: Command = {
  name: 'token',
  usage: 'quiver token create --role read|write|admin [--label L] | list | revoke ID',
  options: {},
  maxArgs: 0,
  async run() {
    throw new QuiverError('BAD_INPUT', 'quiver token: say create, list or revoke');
  },
  subcommands: {
    create: {
      usage: 'quiver token create --role read|write|admin [--label L]',
      summary: 'create a token and print it once (only its hash is kept)',
      options: {
        role: { type: 'string', value: 'ROLE', help: 'read, write or admin' },
        label: { type: 'string', value: 'L', help: 'what the token is for (shown by list)' },
      },
      maxArgs: 0,
      async run(ctx) {
        const role = str(ctx.values, 'role');
        if (role === undefined || !ROLES.includes(role as Role))
          throw new QuiverError(
            'BAD_INPUT',
            `quiver token create: --role must be one of ${ROLES.join(', ')}`,
          );
        const vault = await ctx.openVault();
        const { record, token } = await createToken(
          vault.store,
          role as Role,
          str(ctx.values, 'label') ?? '',
        );
        if (ctx.json) ctx.out(`${JSON.stringify({ ...record, token })}\n`);
        else ctx.out(`${token}\n(${record.role} token ${record.id}; shown once: only its hash is kept)\n`);
        return EXIT.OK;
      },
    },
    list: {
      usage: 'quiver token list',
      summary: 'the tokens: id, role, label and when each was made (never the token)',
      options: {},
      maxArgs: 0,
      async run(ctx) {
        const vault = await ctx.openVault({ readonly: true });
        const tokens = await listTokens(vault.store);
        if (ctx.json) ctx.out(`${JSON.stringify(tokens)}\n`);
        else if (tokens.length === 0)
          ctx.out('no tokens (quiver serve makes an admin token on its first start)\n');
        else
          ctx.out(
            table(
              ['id', 'role', 'label', 'created'],
              tokens.map((t) => [t.id, t.role, t.label, t.createdAt]),
            ),
          );
        return EXIT.OK;
      },
    },
    revoke: {
      usage: 'quiver token revoke ID',
      summary: 'revoke a token at once (a running server refuses it from its next request)',
      options: {},
      maxArgs: 1,
      async run(ctx) {
        const id = ctx.positionals[0];
        if (id === undefined)
          throw new QuiverError('BAD_INPUT', 'quiver token revoke: give the token id (quiver token list)');
        const vault = await ctx.openVault();
        if (!(await revokeToken(vault.store, id)))
          throw new QuiverError('NOT_FOUND', `quiver: no token ${id}`);
        if (ctx.json) ctx.out(`${JSON.stringify({ revoked: id })}\n`);
        else ctx.out(`revoked ${id}\n`);
        return EXIT.OK;
      },
    },
  },
};
