// @ts-check
// `emitDecoratorMetadata`: a decorator recording design-time types through
// `Reflect.metadata`, when a metadata library (e.g. reflect-metadata) has installed it.

'use strict';

module.exports = function decorateMetadata(key, value) {
  const reflect = /** @type {typeof Reflect & { metadata?: Function }} */ (Reflect);
  if (typeof reflect === 'object' && typeof reflect.metadata === 'function') return reflect.metadata(key, value);
  return undefined;
};
