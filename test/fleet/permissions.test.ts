// docs/fleet-server.conf read as the server reads it, against the API's one classification of its methods
// (API_METHOD_ACCESS): every write is an operator's, whatever method is added. The same config runs a real server
// in security.test.ts; this judges every method and principal, which no set of requests there could.
import { describe, expect, it } from 'vitest';
import { API_METHOD_ACCESS, API_METHODS } from '../../src-shared/ipc.js';
import { alertSubject, ALERTS_STREAM, apiSubject, fetchSubject, inboxPrefix, SESSIONS_BUCKET } from '../../src-main/fleet/names.js';
import { agentUser, fleetConfig } from './nats-harness.js';
import { allowed, parseServerConf, usersOf } from './server-conf.js';

const users = usersOf(parseServerConf(fleetConfig(['alpha', 'beta.dc-1'])));
const user = (name: string) => {
  const permissions = users.get(name);
  if (permissions === undefined) throw new Error(`no user ${name} in the config`);
  return permissions;
};
const VIEWERS = ['operator', 'support'];

describe('docs/fleet-server.conf', () => {
  it('lists the API\'s write methods: runAction, runAcknowledge, runRetire', () => {
    expect(API_METHODS.filter((method) => API_METHOD_ACCESS[method] === 'write')).toEqual(['runAction', 'runAcknowledge', 'runRetire']);
  });

  it('every write method is allowed to the operator and denied to support; every read is allowed to both', () => {
    for (const method of API_METHODS) {
      expect(allowed(user('operator').publish, apiSubject('beta.dc-1', method, 'operator')), `operator ${method}`).toBe(true);
      expect(allowed(user('support').publish, apiSubject('beta.dc-1', method, 'support')), `support ${method}`).toBe(API_METHOD_ACCESS[method] === 'read');
    }
  });

  it('each user asks only under its own name, and reads replies only on its own inbox', () => {
    for (const method of API_METHODS) {
      expect(allowed(user('support').publish, apiSubject('alpha', method, 'operator')), `support as operator: ${method}`).toBe(false);
      expect(allowed(user('operator').publish, apiSubject('alpha', method, 'support')), `operator as support: ${method}`).toBe(false);
    }
    const principals = [...VIEWERS, agentUser('alpha'), agentUser('beta.dc-1')];
    for (const reader of principals) {
      for (const owner of principals) {
        expect(allowed(user(reader).subscribe, `${inboxPrefix(owner)}.reply`), `${reader} reading ${owner}'s replies`).toBe(reader === owner);
      }
      expect(allowed(user(reader).subscribe, '_INBOX.reply'), `${reader} reading the default inbox`).toBe(false);
    }
  });

  it('an agent asks nothing of another host, answers only its own, and creates no JetStream consumer', () => {
    const agent = user(agentUser('alpha'));
    for (const method of API_METHODS) {
      for (const as of ['operator', 'support', agentUser('alpha')]) expect(allowed(agent.publish, apiSubject('beta.dc-1', method, as)), `${method} as ${as}`).toBe(false);
      expect(allowed(agent.subscribe, apiSubject('alpha', method, 'operator'))).toBe(true);
      expect(allowed(agent.subscribe, apiSubject('beta.dc-1', method, 'operator'))).toBe(false);
    }
    expect(allowed(agent.publish, fetchSubject('beta.dc-1'))).toBe(false);
    for (const create of [`$JS.API.CONSUMER.CREATE.KV_${SESSIONS_BUCKET}`, `$JS.API.CONSUMER.CREATE.KV_${SESSIONS_BUCKET}.c.$KV.${SESSIONS_BUCKET}.alpha.x`, `$JS.API.CONSUMER.DURABLE.CREATE.KV_${SESSIONS_BUCKET}.c`]) {
      expect(allowed(agent.publish, create), create).toBe(false);
    }
    expect(allowed(agent.publish, `$KV.${SESSIONS_BUCKET}.alpha.s1`)).toBe(true);
    expect(allowed(agent.publish, `$KV.${SESSIONS_BUCKET}.beta=2Edc-1.s1`)).toBe(false);
  });

  it('only a host\'s agent publishes that host\'s alerts; operator and support read them and publish none', () => {
    const principals = [...VIEWERS, agentUser('alpha'), agentUser('beta.dc-1')];
    for (const publisher of principals) {
      for (const host of ['alpha', 'beta.dc-1']) {
        expect(allowed(user(publisher).publish, alertSubject(host, 's1')), `${publisher} publishing ${host}'s alert`).toBe(publisher === agentUser(host));
      }
    }
    for (const viewer of VIEWERS) expect(allowed(user(viewer).publish, `$JS.API.CONSUMER.CREATE.${ALERTS_STREAM}.c`), `${viewer} reading the alerts`).toBe(true);
    expect(allowed(user(agentUser('alpha')).publish, `$JS.API.CONSUMER.CREATE.${ALERTS_STREAM}.c`)).toBe(false);
  });
});
