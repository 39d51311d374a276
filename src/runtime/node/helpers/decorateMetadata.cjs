// `emitDecoratorMetadata`: a decorator recording design-time types through
// `Reflect.metadata`, when a metadata library (e.g. reflect-metadata) has installed it.

'use strict';

module.exports = function decorateMetadata(key, value) {
  if (typeof Reflect === 'object' && typeof Reflect.metadata === 'function') return Reflect.metadata(key, value);
  return undefined;
};
