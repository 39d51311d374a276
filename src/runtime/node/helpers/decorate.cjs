// @ts-check
// TypeScript's legacy decorators (`experimentalDecorators`), lowered by agent-sdk's
// compiler: applies `decorators` to a class (two arguments) or to a member of it (four),
// last to first, each one's result replacing what it decorates when it returns one.

'use strict';

module.exports = function decorate(decorators, target, key, descriptor) {
  const onMember = arguments.length > 2;
  // A metadata library (reflect-metadata) may have added `Reflect.decorate`; the ES Reflect has none.
  const reflect = /** @type {typeof Reflect & { decorate?: Function }} */ (Reflect);
  if (typeof reflect === 'object' && typeof reflect.decorate === 'function') {
    return onMember ? reflect.decorate(decorators, target, key, descriptor) : reflect.decorate(decorators, target);
  }
  let result = onMember && descriptor === null ? Object.getOwnPropertyDescriptor(target, key) : descriptor;
  if (!onMember) result = target;
  for (let index = decorators.length - 1; index >= 0; index--) {
    const decorator = decorators[index];
    if (!decorator) continue;
    const returned = onMember
      ? arguments.length > 3
        ? decorator(target, key, result)
        : decorator(target, key)
      : decorator(result);
    result = returned || result;
  }
  if (arguments.length > 3 && result) Object.defineProperty(target, key, result);
  return result;
};
