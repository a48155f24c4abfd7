/** The dashboard's cookies: the signed-in session, and the sign-in form's CSRF token before there is one. */
export const SESSION_COOKIE = 'pod_session';
export const LOGIN_CSRF_COOKIE = 'pod_login_csrf';
