import { newId, Scope } from '@svc/contracts';
import { isUniqueViolation } from '@svc/event-store';
import { DataSource } from 'typeorm';
import { checkPassword, hashPassword } from './password-hashing';
import { User } from './user.entity';

export class InvalidUserError extends Error {}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export class UsersService {
  constructor(private readonly dataSource: DataSource) {}

  async create(input: {
    tenantId: string;
    email: string;
    password: string;
    scopes: Scope[];
  }): Promise<User> {
    const email = input.email.trim().toLowerCase();
    if (!EMAIL.test(email) || email.length > 320) {
      throw new InvalidUserError(`"${input.email}" is not an email address`);
    }
    const passwordProblem = checkPassword(input.password);
    if (passwordProblem) {
      throw new InvalidUserError(`the password ${passwordProblem}`);
    }
    if (input.scopes.length === 0) {
      throw new InvalidUserError('allow the user at least one scope');
    }
    const repository = this.dataSource.getRepository(User);
    const user = repository.create({
      id: newId('usr'),
      tenantId: input.tenantId,
      email,
      passwordHash: await hashPassword(input.password),
      allowedScopes: [...new Set(input.scopes)],
    });
    try {
      return await repository.save(user);
    } catch (error) {
      if (isUniqueViolation(error, 'users_email_key')) {
        throw new InvalidUserError(`a user with the email ${email} exists already`);
      }
      throw error;
    }
  }

  findById(id: string): Promise<User | null> {
    return this.dataSource.getRepository(User).findOneBy({ id });
  }

  findByEmail(email: string): Promise<User | null> {
    return this.dataSource.getRepository(User).findOneBy({ email: email.trim().toLowerCase() });
  }
}
