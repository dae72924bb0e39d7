import { ValidationError, ValidationPipe } from '@nestjs/common';
import { FieldError, problems } from './problems/problem-details';

/** Flattens class-validator's tree into one entry per offending field, such as `events.1`. */
export function toFieldErrors(errors: ValidationError[], parent = ''): FieldError[] {
  return errors.flatMap((error) => {
    const field = parent ? `${parent}.${error.property}` : error.property;
    const own = Object.values(error.constraints ?? {}).map((detail) => ({ field, detail }));
    return [...own, ...toFieldErrors(error.children ?? [], field)];
  });
}

/** Unknown fields are refused, not ignored, so that a typo never silently drops a setting. */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => problems.invalidRequest(toFieldErrors(errors)),
  });
}
