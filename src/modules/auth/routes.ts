import { iso, isoOrNull } from '../../clock';
import type { Deps } from '../../deps';
import { SESSION_COOKIE } from '../../http/credential';
import { noContent } from '../../http/responses';
import { routeGroup } from '../../http/route-group';
import { findUserById } from '../users/accounts';
import { userDto } from '../users/service';
import { AuthModel } from './model';
import { changeOwnPassword, login, logout } from './service';

const tags = ['auth'];

function sessionCookie(value: string, maxAgeSeconds: number): string {
  return `${SESSION_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${Math.max(0, Math.floor(maxAgeSeconds))}`;
}

export function authRoutes(deps: Deps) {
  return routeGroup('/auth')
    .post(
      '/login',
      async ({ body, request, set }) => {
        const result = await login(deps, body.username, body.password, deps.remoteAddress(request));
        set.headers['set-cookie'] = sessionCookie(result.secret, (result.expiresAt - deps.clock.now()) / 1000);
        return { session: result.secret, expiresAt: iso(result.expiresAt), user: userDto(deps, result.user) };
      },
      { public: true, body: AuthModel.login, response: AuthModel.session, detail: { tags, summary: 'Sign in' } },
    )
    .post(
      '/logout',
      ({ principal, set }) => {
        logout(deps, principal);
        set.headers['set-cookie'] = sessionCookie('', 0);
        return noContent(set);
      },
      { auth: 'authenticated', detail: { tags, summary: 'End the calling session' } },
    )
    .get(
      '/me',
      ({ principal }) => {
        const user = principal.userId === null ? undefined : findUserById(deps, principal.userId);
        return {
          user: user ? userDto(deps, user) : null,
          via: principal.via,
          roleIds: principal.roleIds,
          permissions: [...principal.permissions],
          subsystemIds: principal.subsystemIds,
          expiresAt: isoOrNull(principal.expiresAt),
        };
      },
      { auth: 'authenticated', response: AuthModel.me, detail: { tags, summary: 'Who is calling' } },
    )
    .put(
      '/me/password',
      async ({ principal, body, request, set }) => {
        await changeOwnPassword(deps, principal, deps.remoteAddress(request), body.currentPassword, body.newPassword);
        return noContent(set);
      },
      { auth: 'authenticated', body: AuthModel.password, detail: { tags, summary: 'Change own password' } },
    );
}
