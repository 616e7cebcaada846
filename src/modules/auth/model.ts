import { t } from 'elysia';
import { UserModel } from '../users/model';

export const AuthModel = {
  login: t.Object({
    username: t.String({ minLength: 1, maxLength: 256 }),
    password: t.String({ minLength: 1, maxLength: 1024 }),
  }),
  session: t.Object({ session: t.String(), expiresAt: t.String(), user: UserModel.dto }),
  me: t.Object({
    user: t.Union([UserModel.dto, t.Null()]),
    via: t.String(),
    roleIds: t.Array(t.Integer()),
    permissions: t.Array(t.String()),
    subsystemIds: t.Array(t.Integer()),
    expiresAt: t.Union([t.String(), t.Null()]),
  }),
  password: t.Object({
    currentPassword: t.String({ minLength: 1, maxLength: 1024 }),
    newPassword: t.String({ maxLength: 1024 }),
  }),
};
