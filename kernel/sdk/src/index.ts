export * from './errors';
export * from './plan';
export * from './auth';
export * from './bus';
export * from './realtime';
export * from './plugin';
export * from './identity';
export * from './http';
