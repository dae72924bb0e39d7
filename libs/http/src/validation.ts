import { ArgumentMetadata, ValidationError, ValidationPipe } from '@nestjs/common';
import { FieldError, problems } from './problems/problem-details';

/** Flattens class-validator's tree into one entry per offending field, such as `events.1`. */
export function toFieldErrors(errors: ValidationError[], parent = ''): FieldError[] {
  return errors.flatMap((error) => {
    const field = parent ? `${parent}.${error.property}` : error.property;
    const own = Object.values(error.constraints ?? {}).map((detail) => ({ field, detail }));
    return [...own, ...toFieldErrors(error.children ?? [], field)];
  });
}

function isJsonObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Request validation: the first broken rule of each field (not every rule it then also breaks),
 * unknown fields refused rather than ignored so that a typo never silently drops a setting, and
 * a body that is not a JSON object named as such.
 */
class RequestValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    // No body at all reads as an empty object: its required fields are then named one by one.
    const body = metadata.type === 'body' && value === undefined ? {} : value;
    if (metadata.type === 'body' && !isJsonObject(body)) {
      throw problems.invalidRequest([{ field: '(body)', detail: 'must be a JSON object' }]);
    }
    return super.transform(body, metadata);
  }
}

export function createValidationPipe(): ValidationPipe {
  return new RequestValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    stopAtFirstError: true,
    transform: true,
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => problems.invalidRequest(toFieldErrors(errors)),
  });
}
