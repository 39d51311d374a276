// @ts-check
// A parameter decorator of TypeScript's legacy decorators, as a member decorator that
// passes the parameter's position on.

'use strict';

module.exports = function decorateParam(index, decorator) {
  return (target, key) => decorator(target, key, index);
};
